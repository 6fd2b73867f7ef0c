"""The bookkeeping of the batch engine (`batch.solve_lm`): the slots in flight, their goals,
the per-target answers, and what happens when an attempt ends.

An attempt ends converged inside the limits (the target is solved), or failed: it is then
reseeded in place with a random configuration while the target has restarts left. A freed
slot goes to the next target in the queue; once the queue is empty the pool shrinks, and
while it is small every unsolved target races up to `RACE` seeds at once (the fixed cost of
an iteration is then paid by few problems, so extra seeds are nearly free and the tail of
slow targets takes a few attempts' time instead of many in a row).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from ..model.robot import Robot
from .limits import outside_by, random_seeds, snapped, wrap_inside
from .numeric import CONVERGED, STALLED, Options

OUTSIDE = 4  # status: abandoned while converging outside the joint limits
from .pose_error import pose_error
from .residual import errors, residual
from .target import Target

TAIL = 512  # below this many slots (queue empty), unsolved targets race several seeds …
RACE = 64  # … up to this many each (below ~500 problems an iteration costs about the same)


@dataclass
class Slots:
    """The problems in flight, P of them, the batch on the last axis of every array."""

    tid: np.ndarray  # (P,) target index
    qt: np.ndarray  # (n, P) the configuration to evaluate next
    q: np.ndarray  # (n, P) the last accepted configuration
    E: np.ndarray  # (P,) its ½‖e‖² (inf until the seed is evaluated)
    lam: np.ndarray  # (P,) λ
    it: np.ndarray  # (P,) iterations in this attempt
    best: np.ndarray  # (P,) the best E of this attempt …
    since: np.ndarray  # (P,) … and the iteration it was reached
    attempt: np.ndarray  # (P,) 0 for the caller's seed, k for a target's k-th random seed
    clip: np.ndarray  # (P,) this attempt projects every step onto the limits …
    adapt: np.ndarray  # (P,) … and damps by accept/reject (else freely, with Chan's λ)
    e: np.ndarray | None = None  # (k, P) adaptive only: the residual at q
    Je: np.ndarray | None = None  # (k, n, P) adaptive only: its Jacobian

    @property
    def P(self) -> int:
        return len(self.tid)

    def take(self, keep: np.ndarray) -> "Slots":
        return Slots(**{f.name: (None if (v := getattr(self, f.name)) is None else v[..., keep])
                        for f in fields(self)})

    def extend(self, other: "Slots") -> "Slots":
        """These slots, then `other`'s (fresh: their e and Je are filled when evaluated)."""
        def cat(a, b):
            if a is None:
                return None
            return np.concatenate([a, np.zeros(a.shape[:-1] + (other.P,)) if b is None else b], axis=-1)
        return Slots(**{f.name: cat(getattr(self, f.name), getattr(other, f.name)) for f in fields(self)})


HARD = 2  # after this many random seeds, every other one runs clipped with accept/reject


def modes(seed_no: np.ndarray, opts: Options) -> tuple[np.ndarray, np.ndarray]:
    """(clip, adaptive) of attempts by seed number: the caller's seed (0) runs the caller's
    settings; random seeds iterate freely with Chan's λ — except, for a target that has used
    more than HARD of them, every odd one runs bound-constrained (clipped, with the joints a
    limit holds left out of the step: `limits.pinned`) with accept/reject. Free iteration
    rarely finds in-limit solutions that sit on a corner of the joint box (a Panda target
    reached with all 7 joints on limits: 87 % of 2 000 solved by free seeds and plain clipped
    ones; 99.8 % with these). Their seeds hold some joints on a limit (`limits.snapped`).
    A free attempt that converged outside the limits by less than `limits.polish_margin` (the
    exact solution may lie on a limit, approached from outside; for a redundant arm, anywhere on
    the self-motion manifold it met) is polished: it goes on from
    its end clipped onto the limits, with accept/reject, keeping its attempt number (and so
    its iteration cap) — in `single.solve_one` and in `bookkeep` alike."""
    first = seed_no == 0
    hard = (seed_no > HARD) & (seed_no % 2 == 1)
    return (first & opts.clip_limits) | hard, (first & (opts.damping == "adaptive")) | hard


def restart_seeds(robot: Robot, numbers: np.ndarray, opts: Options, rng: np.random.Generator) -> np.ndarray:
    """Seeds (k, n) for the restarts numbered `numbers` (k,): uniform inside the limits, and
    for the bound-constrained ones (`modes`) with some joints on a limit (`limits.snapped`)."""
    seeds = random_seeds(robot, len(numbers), rng)
    hard = np.flatnonzero(modes(np.asarray(numbers), opts)[0])
    if hard.size:
        seeds[hard] = snapped(robot, seeds[hard], rng.random((hard.size, robot.n)))
    return seeds


def fresh(slots: Slots, rows, q0: np.ndarray, opts: Options) -> None:
    """Start new attempts in `rows` (their `attempt` set) from the configurations q0 (n, len(rows))."""
    slots.clip[rows], slots.adapt[rows] = modes(slots.attempt[rows], opts)
    slots.qt[:, rows] = q0
    slots.E[rows] = np.inf
    slots.lam[rows] = opts.lambda0
    slots.it[rows] = 0
    slots.best[rows] = np.inf
    slots.since[rows] = 0


def new_slots(tid: np.ndarray, q0: np.ndarray, opts: Options, attempt: "int | np.ndarray" = 0) -> Slots:
    P = len(tid)
    s = Slots(tid, q0.copy(), q0.copy(), np.empty(P), np.empty(P), np.empty(P, int), np.empty(P),
              np.empty(P, int), np.broadcast_to(attempt, (P,)).astype(int), np.empty(P, bool), np.empty(P, bool))
    fresh(s, slice(None), q0, opts)
    return s


@dataclass
class Out:
    """Per target (N): the answer so far."""

    q: np.ndarray  # (N, n)
    status: np.ndarray
    iters: np.ndarray
    solved: np.ndarray
    used: np.ndarray  # random seeds spent
    raced: float = np.inf  # the pool's size after the last race (see bookkeep)

    @classmethod
    def empty(cls, seeds: np.ndarray) -> "Out":
        N = len(seeds)
        return cls(seeds.copy(), np.full(N, STALLED), np.zeros(N, int), np.zeros(N, bool), np.zeros(N, int))


class Goals:
    """The targets of the slots, gathered again whenever the slots change, and the residual
    there. Pose targets (the common case) keep p_d (3, P) and R_d (3, 3, P) batch-last."""

    def __init__(self, target: Target, tid: np.ndarray):
        self.target = target
        self.fast = target.kind == "pose" and target.weights is None
        if self.fast:
            self.pd_all = np.ascontiguousarray(target.p.T)
            self.Rd_all = np.ascontiguousarray(target.R.transpose(1, 2, 0))
        self.gather(tid)

    def gather(self, tid: np.ndarray) -> None:
        if self.fast:
            self.pd, self.Rd = self.pd_all[:, tid], self.Rd_all[..., tid]
        else:
            self.t = self.target[tid]

    def evaluate(self, ws, q: np.ndarray):
        """Residual e (k, P), its Jacobian (k, n, P), ½‖e‖², position and orientation errors."""
        Tr, J = ws.pass_(q)
        if self.fast:
            e, pos, ori = pose_error(self.pd, self.Rd, Tr)
        else:  # the general forms, on the usual layout
            T = np.empty((q.shape[1], 4, 4))
            T[:, :3], T[:, 3] = Tr.transpose(1, 0, 2), (0.0, 0.0, 0.0, 1.0)
            e, Je = residual(self.t, T, J.transpose(2, 0, 1))
            pos, ori = errors(self.t, T)
            e, J = np.ascontiguousarray(e.T), np.ascontiguousarray(Je.transpose(1, 2, 0))
        return e, J, 0.5 * np.einsum("kP,kP->P", e, e), pos, ori


def grant(used: np.ndarray, tid: np.ndarray, budget: int, unique: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Which of the requests `tid` (targets, repeats allowed unless `unique`) get one more
    random seed within each target's budget, and each request's seed number (1, 2, …);
    `used` is counted up for those granted."""
    if unique:
        number = used[tid] + 1
    else:
        order = np.argsort(tid, kind="stable")
        st = tid[order]
        idx = np.arange(len(st))
        start = np.maximum.accumulate(np.where(np.r_[True, st[1:] != st[:-1]], idx, 0))
        number = np.empty(len(tid), int)
        number[order] = used[st] + (idx - start) + 1
    granted = number <= budget
    if unique:
        used[tid[granted]] += 1
    else:
        np.add.at(used, tid[granted], 1)
    return granted, number


def _record(robot: Robot, slots: Slots, out: Out, rows: np.ndarray, status: np.ndarray, enforce: bool,
            unique: bool) -> np.ndarray:
    """Write the finished attempts `rows` into `out`; returns which of them solved their target.
    Revolute joints are turned by 2π into their limits where they can be (`wrap_inside`)."""
    tid, st, q = slots.tid[rows], status[rows], slots.q[:, rows]
    if enforce:
        q, inside = wrap_inside(robot, q)
        ok = (st == CONVERGED) & inside
    else:
        ok = st == CONVERGED
    if unique:  # each target in one slot (no racing yet): plain fancy indexing
        out.iters[tid] += slots.it[rows]
    else:
        np.add.at(out.iters, tid, slots.it[rows])
    # a failure is explained by the first attempt's end, or better by an attempt that found
    # solutions only outside the limits (not once a sibling seed has solved the target)
    told = out.status[tid]
    told = (told == CONVERGED) | (told == OUTSIDE)
    write = ~ok & ~out.solved[tid] & ~told & ((slots.attempt[rows] == 0) | (st == CONVERGED) | (st == OUTSIDE))
    if write.any():
        out.q[tid[write]], out.status[tid[write]] = q[:, write].T, st[write]
    out.q[tid[ok]], out.status[tid[ok]] = q[:, ok].T, CONVERGED
    out.solved[tid[ok]] = True
    return ok


def bookkeep(robot: Robot, slots: Slots, out: Out, status: np.ndarray, seedsT: np.ndarray, nxt: int,
             plan, rng) -> tuple[Slots, int, bool]:
    """Record finished attempts; reseed the failures that have restarts left; give freed slots
    to the next targets in the queue; drop the slots nobody needs; race the tail. Returns the
    slots, the next target in the queue, and whether the slots' targets changed."""
    N = seedsT.shape[1]
    if nxt == N:  # racing: a slot whose target a sibling solved has nothing left to do
        status[(status == -1) & out.solved[slots.tid]] = STALLED
    rows = np.flatnonzero(status != -1)
    if rows.size == 0:
        return slots, nxt, False
    unique = nxt < N  # racing (several slots per target) starts once the queue is empty
    ok = _record(robot, slots, out, rows, status, plan.enforce, unique)
    fail = rows[~ok & ~out.solved[slots.tid[rows]]]
    polishing = _polish(robot, slots, fail, status, plan.opts, plan.margin) if plan.enforce else fail[:0]
    fail = np.setdiff1d(fail, polishing, assume_unique=True) if polishing.size else fail
    granted, number = grant(out.used, slots.tid[fail], plan.restarts, unique)
    again = fail[granted]
    slots.attempt[again] = number[granted]
    fresh(slots, again, restart_seeds(robot, number[granted], plan.opts, rng).T, plan.opts)
    alive = np.ones(slots.P, bool)
    alive[rows] = False
    alive[again] = True
    alive[polishing] = True
    free = np.flatnonzero(~alive)
    take = min(free.size, N - nxt)
    if take:  # the next targets in the queue, from the caller's seeds
        new = free[:take]
        slots.tid[new], slots.attempt[new] = np.arange(nxt, nxt + take), 0
        fresh(slots, new, seedsT[:, nxt:nxt + take], plan.opts)
        alive[new] = True
        nxt += take
    if not alive.all():
        slots = slots.take(alive)
    if nxt == N and 0 < slots.P < min(TAIL, 0.75 * out.raced):  # not every iteration: each costs ~50 calls
        slots = _race(robot, slots, out, plan, rng)
        out.raced = slots.P
    return slots, nxt, True


def _polish(robot: Robot, slots: Slots, fail: np.ndarray, status: np.ndarray, opts: Options,
            margin: float) -> np.ndarray:
    """The failed rows whose free attempt converged outside the limits by less than `margin`
    (`limits.polish_margin`) go on in place, polished (see `modes`); returns those rows."""
    cand = fail[(status[fail] == CONVERGED) & ~slots.clip[fail]]
    if cand.size == 0:
        return cand
    q = slots.q[:, cand]
    near = ~outside_by(robot, q, margin)
    rows = cand[near]
    if rows.size:
        q0 = np.clip(wrap_inside(robot, q[:, near])[0], robot.limits[:, :1], robot.limits[:, 1:])
        fresh(slots, rows, q0, opts)
        slots.clip[rows] = slots.adapt[rows] = True
    return rows


def _race(robot: Robot, slots: Slots, out: Out, plan, rng) -> Slots:
    """Give every unsolved target in the pool more seeds at once, up to RACE each and TAIL in all."""
    tids, count = np.unique(slots.tid, return_counts=True)
    k = np.minimum(RACE - count, (TAIL - slots.P) // len(tids))
    if k.max(initial=0) < 1:
        return slots
    req = np.repeat(tids, np.maximum(k, 0))
    granted, number = grant(out.used, req, plan.restarts)
    tid = req[granted]
    if tid.size == 0:
        return slots
    return slots.extend(new_slots(tid, restart_seeds(robot, number[granted], plan.opts, rng).T, plan.opts,
                                  attempt=number[granted]))
