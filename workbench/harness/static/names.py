"""What a name in a solution stands for: imports, aliases made by assignment, and the spellings that reach an
attribute without writing it (`getattr(m, "a")`, `m.__dict__["a"]`, `vars(m)["a"]`, `sys.modules["m"]`)."""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterator
from dataclasses import dataclass

from workbench.harness.static.lists import DYNAMIC_ATTRIBUTE_BUILTINS, RULE_BUILTINS

_PYTHON_BUILTINS = frozenset(dir(builtins))


@dataclass(frozen=True)
class Imported:
    """One imported name: where, the dotted path it stands for, and how it was written."""

    line: int
    dotted: str
    what: str
    bound: str | None  # the local name it binds; None for relative imports and the extra check of `import a.b`
    relative: bool = False


class Names:
    """Resolves expressions to dotted paths (`F.softmax` -> `torch.nn.functional.softmax`) through the imports
    and through plain assignments anywhere in the module (`t = torch`, `nn = t.nn`): flow-insensitive on
    purpose, since a speed bump may over-approximate what a name can hold but must not miss an alias."""

    def __init__(self, tree: ast.Module) -> None:
        self.imports = list(_imports(tree))
        self.aliases: dict[str, str] = {}
        self.builtin_aliases: dict[str, str] = {}  # `_max = max`, `g = getattr`: the builtin each stands for
        for imported in self.imports:
            if imported.bound is not None:
                self.aliases[imported.bound] = imported.dotted
        sources = list(_alias_sources(tree))
        for _ in range(2):  # the second pass sees aliases of aliases bound later in the walk
            for name, value in sources:
                self._bind(name, value)

    def _bind(self, name: str, value: ast.expr) -> None:
        if isinstance(value, ast.Name) and self.builtin(value) is not None:
            self.builtin_aliases[name] = self.builtin(value) or ""
            return
        dotted = self.resolve(value)
        if dotted is not None and name not in self.aliases:
            self.aliases[name] = dotted

    def builtin(self, node: ast.expr) -> str | None:
        """The builtin a name stands for (`getattr`, or `g` after `g = getattr`), unless an import shadows it."""
        if not isinstance(node, ast.Name):
            return None
        if node.id in self.builtin_aliases:
            return self.builtin_aliases[node.id]
        if (node.id in _PYTHON_BUILTINS or node.id in RULE_BUILTINS) and node.id not in self.aliases:
            return node.id
        return None

    def resolve(self, node: ast.expr) -> str | None:
        """The dotted name an expression stands for, or None when it does not start at an import or at one of
        the builtins the rules name."""
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value)
            return None if base is None else f"{base}.{node.attr}"
        if isinstance(node, ast.Name):
            if node.id in self.aliases:
                return self.aliases[node.id]
            found = self.builtin(node)
            return found if found in RULE_BUILTINS else None
        if isinstance(node, ast.Call):
            return self._resolve_call(node)
        if isinstance(node, ast.Subscript):
            return self._resolve_subscript(node)
        return None

    def _resolve_call(self, node: ast.Call) -> str | None:
        fn = self.builtin(node.func)
        key = _constant(node.args[1]) if len(node.args) >= 2 else None
        if fn == "getattr" and key is not None:
            base = self.resolve(node.args[0])
            return None if base is None else f"{base}.{key}"
        dotted = self.resolve(node.func)
        if (fn == "__import__" or dotted == "importlib.import_module") and node.args:
            return _constant(node.args[0])
        if isinstance(node.func, ast.Attribute) and node.func.attr == "get" and node.args:
            return self._keyed(node.func.value, _constant(node.args[0]))  # m.__dict__.get("a")
        return None

    def _resolve_subscript(self, node: ast.Subscript) -> str | None:
        return self._keyed(node.value, _constant(node.slice))

    def _keyed(self, mapping: ast.expr, key: str | None) -> str | None:
        if key is None:
            return None
        if isinstance(mapping, ast.Attribute) and mapping.attr == "__dict__":
            base = self.resolve(mapping.value)
            return None if base is None else f"{base}.{key}"
        if isinstance(mapping, ast.Call) and self.builtin(mapping.func) == "vars" and mapping.args:
            base = self.resolve(mapping.args[0])
            return None if base is None else f"{base}.{key}"
        if self.resolve(mapping) == "sys.modules":
            return key
        return None

    def is_dynamic_attribute_call(self, node: ast.Call) -> bool:
        """getattr/setattr/delattr whose attribute name is computed rather than written down."""
        fn = self.builtin(node.func)
        return fn in DYNAMIC_ATTRIBUTE_BUILTINS and (len(node.args) < 2 or _constant(node.args[1]) is None)


def _constant(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _alias_sources(tree: ast.Module) -> Iterator[tuple[str, ast.expr]]:
    for node in ast.walk(tree):
        pairs: list[tuple[ast.expr, ast.expr]] = []
        if isinstance(node, ast.Assign):
            pairs = [(t, node.value) for t in node.targets]
        elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and node.value is not None:
            pairs = [(node.target, node.value)]
        for target, value in pairs:
            yield from _unpack(target, value)


def _unpack(target: ast.expr, value: ast.expr) -> Iterator[tuple[str, ast.expr]]:
    if isinstance(target, ast.Name):
        yield target.id, value
    elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)):
        if len(target.elts) == len(value.elts):
            for t, v in zip(target.elts, value.elts):
                yield from _unpack(t, v)


def _imports(tree: ast.Module) -> Iterator[Imported]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                bound = alias.asname or alias.name.split(".")[0]
                dotted = alias.name if alias.asname else alias.name.split(".")[0]
                yield Imported(node.lineno, dotted, f"import {alias.name}", bound)
                if not alias.asname and "." in alias.name:  # `import a.b` also imports a.b: check it as such
                    yield Imported(node.lineno, alias.name, f"import {alias.name}", None)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            for alias in node.names:
                what = f"from {'.' * node.level}{module} import {alias.name}"
                local: str | None = None if node.level else alias.asname or alias.name
                yield Imported(node.lineno, f"{module}.{alias.name}", what, local, node.level > 0)
