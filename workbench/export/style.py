"""The exported page's style sheet, inlined into the page (no external asset)."""

STYLE = """
:root { --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --bg-soft: #f6f8fa; --ok: #1a7f37; --bad: #c92a2a;
        --warn: #9a6700; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); margin: 0 auto;
       padding: 16px 24px 40px; max-width: 1600px; }
h1 { font-size: 20px; margin: 4px 0 12px; overflow-wrap: anywhere; }
h2 { font-size: 16px; margin: 24px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
table { border-collapse: collapse; margin: 6px 0; }
th, td { border: 1px solid var(--line); padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: var(--bg-soft); font-weight: 600; }
table.settings td:first-child, table.summary td:first-child { color: var(--muted); white-space: nowrap; }
td { overflow-wrap: anywhere; }
pre, .hl pre { font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; white-space: pre-wrap;
               overflow-wrap: anywhere; margin: 4px 0; }
.hl { background: var(--bg-soft); border: 1px solid var(--line); border-radius: 4px; padding: 2px 8px; }
details { margin: 4px 0; }
details > summary { cursor: pointer; }
details.turn { border: 1px solid var(--line); border-radius: 6px; padding: 4px 10px; }
details.turn > summary { font-weight: 600; }
details.turn[open] > summary { margin-bottom: 6px; }
.who { color: var(--muted); font-size: 12px; margin-top: 6px; }
.agent-text { white-space: pre-wrap; overflow-wrap: anywhere; background: #eef4ff; border-radius: 4px;
              padding: 6px 8px; }
.tool-call { margin-top: 6px; }
.tool-name { font-family: ui-monospace, monospace; font-weight: 600; }
.tool-result pre { background: #fbfbfb; border-left: 3px solid var(--line); padding-left: 8px; }
.tool-result.error pre, .error pre { border-left: 3px solid var(--bad); }
.error { color: var(--bad); }
.interrupted { color: var(--warn); font-weight: 600; }
.note { color: var(--muted); }
.ok { color: var(--ok); }
.bad { color: var(--bad); }
.unavailable { color: var(--muted); font-style: italic; }
.badge { display: inline-block; border: 1px solid var(--line); border-radius: 10px; padding: 0 8px; margin-left: 4px;
         font-size: 12px; }
.badge.ok { color: var(--ok); border-color: var(--ok); }
.badge.bad { color: var(--bad); border-color: var(--bad); }
.badge.interrupted { color: var(--warn); border-color: var(--warn); }
.badge.counted { background: #fff8c5; }
.eval { border-left: 3px solid var(--line); padding: 2px 8px; margin: 6px 0; }
.eval-head { font-size: 13px; }
table.evals { font-size: 12px; }
.human { color: #8250df; }
.pair { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; }
.col { min-width: 0; }
svg.plot { max-width: 100%; height: auto; font: 11px system-ui, sans-serif; }
svg.plot .axis { stroke: #57606a; }
svg.plot .grid { stroke: #eaeef2; }
svg.plot .parity { stroke: #8c959f; stroke-dasharray: 4 3; }
svg.plot .plot-note { fill: var(--muted); }
footer { margin-top: 32px; color: var(--muted); font-size: 12px; }
"""
