"""Inputs for viterbi_maxplus: CRF/HMM emission scores [B, T, S] and transition scores [S, S].

Scores are log-potentials on a grid of 1/8 (as from a model whose outputs are quantised with a
power-of-two scale): emissions are log-softmax values of Gaussian logits rounded to 1/8, and
transitions are Gaussian scores rounded to 1/8 with about 15% of the (prev, next) pairs forbidden
by a score of -10000 (the convention of CRF taggers for invalid BIO moves; staying in a state is
always allowed, so every sequence has a finite best path). On this grid every sum the decoder forms
is exact in fp32, whatever the order of the additions, and equal candidate scores are frequent: the
first-index tie rule decides many backpointers, so it is really tested; two twin states make a tie on the
best path itself on every seed.
"""

import torch

GRID = 8.0  # scores are multiples of 1/8
FORBIDDEN = -10000.0


def make_inputs(params: dict, seed: int, device) -> tuple:
    batch, steps, states = int(params["batch"]), int(params["steps"]), int(params["states"])
    g = torch.Generator(device=device).manual_seed(seed)
    logits = 1.5 * torch.randn(batch, steps, states, generator=g, device=device)
    emissions = torch.log_softmax(logits, dim=-1).mul_(GRID).round_().div_(GRID)

    transitions = torch.randn(states, states, generator=g, device=device).mul_(GRID).round_().div_(GRID)
    forbidden = torch.rand(states, states, generator=g, device=device) < 0.15
    forbidden.fill_diagonal_(False)
    transitions[forbidden] = FORBIDDEN
    # States 0 and 1 are twins (the same emissions, the same transitions in and out), so their candidate scores tie
    # exactly wherever the best path passes through either: the first-index rule decides a backpointer on the path on
    # every seed (on CI-sized chains, 1 seed in 8 had no tie on the path and a last-index tie rule passed).
    emissions[..., 1] = emissions[..., 0]
    transitions[1, :] = transitions[0, :]
    transitions[:, 1] = transitions[:, 0]
    return emissions.contiguous(), transitions.contiguous()
