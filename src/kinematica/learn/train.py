"""Training a learned IK model for one branch of a robot, from its own FK.

`train_ik` samples joint values uniformly in the branch (`sampling.branch`), splits them
80/10/10 into training, validation and test samples, draws EDGE_SHARE of the training samples
again near the edges of the branch box (joint limits and the elbow-straight singularity, where a
smooth model errs most; validation and test stay uniform), takes the targets their FK reaches,
fits one ANFIS network per network joint (all on the same inputs) by hybrid learning with early
stopping on the validation targets, and evaluates the result on the test targets
(`evaluate.ik_report`): the report travels inside the model. A planar arm's network answers
every joint from (x, y, φ); a 4/5-joint or 6R arm's answers joints 1–3 from the wrist point
(ψ, ρw, zw) and the wrist joints follow in closed form (`learn.closed`). Where the law of
cosines holds for its elbow (`learn.elbow`: the library's arms but the SO-101 and Puma 560) it reads
that point from the shoulder, (ψ, s, β), and answers cos(θ3 − θ3*) for joint 3. Besides the RMSE
that hybrid learning minimises (training and validation, of the network's outputs: rad, the
length unit, or the elbow's cosine, unitless), the report's
"tool_train" and "tool_validation" hold, per epoch, the tool error of the answers to
TOOL_SAMPLE training and validation targets (FK of the answer against the target: position
median and mean in the length unit, orientation median in degrees) — what a user of the model
reads.

Rules: by default a grid of DEFAULT_GRID memberships per input (125 = 5³ for a planar arm's
(x, y, φ); 1 × 24 × 1 = 24 in the elbow coordinates, crowded towards both ends of s; 1 × 8 × 8 = 64
on the raw wrist point, ψ needing one). An int R instead: with d inputs,
R = m^d is a grid partition of m memberships per input; any other R (or partition="cluster") is
R rules at fuzzy c-means centres.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from ..bounds import EPOCHS, RULES, TRAINING, count
from ..ik.target import Target
from ..model.coerce import takes_robot
from ..model.robot import Robot
from . import anfis, elbow
from .closed import network_joints
from .cluster import fuzzy_c_means
from .model import IKModel
from .sampling import (
    ANGULAR,
    ARM_INPUTS,
    TASKS,
    Branch,
    LearnError,
    branch,
    fk_targets,
    front,
    inputs,
    sample_joints,
    split,
    task_of,
)
from .scaling import apply, fit

DEFAULT_GRID = {"planar": (5, 5, 5), "pitch": (1, 8, 8), "pose": (1, 8, 8), "elbow": (1, 24, 1)}  # memberships per
# input. ψ gets one: joint 1 follows the azimuth linearly, a rule's consequent does that exactly. In the
# elbow coordinates (ψ, s, β) (`learn.elbow`) β gets one too: joint 2 is β minus a function of s, the
# elbow's cosine affine in s, so only s needs a partition, its memberships crowded towards its ends
# (`anfis.grid` spacing "ends"), where that function has the √ of the straight and the folded elbow.
# Measured (10 000 samples, 20 epochs, tool median / within 1 mm & 1°): 16 even 0.010 mm / 99.6 % on
# arm-5dof, 0.37 mm / 65 % on the KR6; 24 "ends" 0.0035 mm / 99.9 % and 0.055 mm / 99.9 %
EDGE_SHARE = 0.1  # of the training samples drawn near an edge of the branch box (`sampling.EDGE`)
TOOL_SAMPLE = 200  # training and validation targets whose tool error is measured after every
# epoch (FK of the answers): the median to ~10 %, for ~1 ms of the epoch's work; the curve the user reads
PATIENCE = 3  # epochs without a 0.1 % better validation error before training stops
PARTITIONS = ("auto", "grid", "cluster")
CLUSTER_FUZZINESS = 1.5  # c-means with the usual m = 2 pulls most of 60 centres onto the mean of the KUKA's 6
# inputs; m = 1.3–1.6 spreads them: tool error 3.2 → 2.9 % of the reach, orientation ~16° → 12–14°


def grid_size(d: int, rules: int) -> int | None:
    """m with m^d == rules, or None."""
    m = round(rules ** (1.0 / d))
    for k in (m - 1, m, m + 1):
        if k >= 1 and k ** d == rules:
            return k
    return None


def initial_network(x: np.ndarray, rules: int, outputs: int, shape: str, partition: str,
                    rng: np.random.Generator, spacing: str = "even") -> anfis.Anfis:
    """The untrained network on scaled inputs x (N, d): a grid partition (memberships spaced as
    `anfis.grid` says) or clustered rules."""
    if partition not in PARTITIONS:
        raise LearnError(f"partition must be one of {', '.join(PARTITIONS)}, got {partition!r}")
    d = x.shape[1]
    m = grid_size(d, rules)
    if partition == "grid" and m is None:
        raise LearnError(f"a grid partition of {d} inputs has m^{d} rules ({', '.join(str(k ** d) for k in range(2, 6))}"
                         f", …), not {rules}")
    if partition != "cluster" and m is not None:
        return anfis.grid(d, m, shape, outputs, spacing)
    centres, widths = fuzzy_c_means(x, rules, fuzziness=CLUSTER_FUZZINESS, rng=rng)
    return anfis.clustered(centres, widths, shape, outputs)


def check_counts(samples: int, rules: int, epochs: int, d: int, train_share: float = 0.8,
                 products: int = 0) -> tuple[int, int, int]:
    samples = count(samples, "samples", TRAINING, error=LearnError)
    rules = count(rules, "rules", RULES, error=LearnError)
    epochs = count(epochs, "epochs", EPOCHS, error=LearnError)
    need = rules * (d + products + 1)
    if round(train_share * samples) < need:
        share = f", and {train_share:.0%} of the samples train them" if train_share < 1 else ""
        terms = f" with {products} product terms" if products else ""
        raise LearnError(f"{samples} {'training ' if train_share == 1 else ''}samples are too few for {rules} rules on "
                         f"{d} inputs{terms}: each output's network has {need} consequent coefficients{share}; give at least "
                         f"{int(np.ceil(need / train_share))} samples or fewer rules")
    return samples, rules, epochs


@takes_robot
def train_ik(robot: Robot, *, samples: int = 10_000, rules: int | None = None, epochs: int = 20,
             branch_spec: str = "elbow+", shape: str = "gauss", partition: str = "auto", seed: int = 0,
             warm_start: int = 200, progress: Callable[[int, int, float], None] | None = None) -> IKModel:
    """An IK model of one branch of `robot`, trained on its FK and evaluated on held-out targets.

    samples: FK samples drawn (80 % train, 10 % validation, 10 % test); rules: see the module
    docstring (default 125 planar, 24 in the elbow coordinates, else 64); epochs: at most this many (early
    stopping); shape: "gauss" or "bell"; warm_start: test targets the LM warm-start comparison
    solves (0: none); progress(epoch, epochs, rmse) after every epoch.

    >>> m = train_ik("planar-3r", samples=600, rules=8, epochs=2, warm_start=0)
    >>> m.report["inputs"], m.report["rules"]
    (['x', 'y', 'φ'], 8)
    """
    from .evaluate import ik_report

    task = task_of(robot)
    d = ARM_INPUTS[task]
    if partition not in PARTITIONS:
        raise LearnError(f"partition must be one of {', '.join(PARTITIONS)}, got {partition!r}")
    el = None if task == "planar" else elbow.of_branch(robot, branch(robot, branch_spec))
    coords = "elbow" if el is not None else task
    grid = DEFAULT_GRID[coords] if rules is None and partition != "cluster" else None
    rules = int(np.prod(DEFAULT_GRID[coords])) if rules is None else rules
    samples, rules, epochs = check_counts(samples, rules, epochs, d)
    warm_start = count(warm_start, "warm_start", TRAINING, minimum=0, error=LearnError)
    data = training_data(robot, samples, branch_spec, seed)
    br, rng, q, targets, X, (tr, va, te), edge = (data.branch, data.rng, data.q, data.targets, data.X, data.split,
                                                   data.near_edges)
    J = network_joints(robot, br)
    Z = X[:, :d] if el is None else elbow.coordinates(el, X)
    # the model's coordinates need only the network's input count: the trained network replaces this one
    model = IKModel(robot, br, fit(Z[tr], ANGULAR[task][:d] if el is None else ANGULAR[task][:1] + elbow.ANGULAR), anfis.grid(d, 1), elbow=el)
    Xs, Y = model.scaled_inputs(X), model.network_outputs(q)
    start, cpu = time.perf_counter(), time.process_time()
    spacing = "ends" if el is not None else "even"  # s's ends: the straight and the folded elbow
    net = (anfis.grid(d, list(grid), shape, len(J), spacing) if grid
           else initial_network(Xs[tr], rules, len(J), shape, partition, rng, spacing))
    watched = {"train": rng.choice(tr, min(TOOL_SAMPLE, len(tr)), replace=False), "validation": va[:TOOL_SAMPLE]}
    tool = {part: {k: [] for k in TOOL_KEYS} for part in watched}
    net, hist = anfis.train(net, Xs[tr], Y[tr], epochs, x_val=Xs[va], y_val=Y[va], patience=PATIENCE, progress=progress,
                            watch=lambda n: _watch(replace(model, net=n), targets, watched, tool))
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu  # CPU: what a shared machine's load hides
    model = replace(model, net=net)
    names = [robot.joint_names[j] for j in J]
    report = {"kind": "ik", "robot": robot.name, "task": task, "inputs": list(TASKS[task][:d] if el is None else elbow.NAMES),
              "outputs": names if el is None else [elbow.output_name(n) if j == 2 else n
                                                   for j, n in zip(J, names, strict=True)],
              "branch": br.spec, "joints": names,
              "closed_form_joints": [robot.joint_names[j] for j in np.setdiff1d(br.learned, J)], "rules": net.n_rules,
              "memberships": [int(net.rules[:, i].max()) + 1 for i in range(d)],
              "partition": "grid" if grid or (grid_size(d, net.n_rules) is not None and partition != "cluster") else "cluster",
              "spacing": spacing,
              "shape": shape, "samples": samples, "train": len(tr), "train_near_edges": edge, "validation": len(va),
              "test": len(te), "epochs": len(hist), "max_epochs": epochs, "train_seconds": seconds,
              "train_cpu_seconds": cpu, "seed": seed,
              "rmse_train": hist[:, 0].tolist(), "rmse_validation": hist[:, 1].tolist(),
              "length_unit": robot.length_unit, "tool_train": {"count": len(watched["train"]), **tool["train"]},
              "tool_validation": {"count": len(watched["validation"]), **tool["validation"]}}
    every = fit(X[tr], ANGULAR[task])  # the nearest-neighbour baseline reads every input, orientation included
    report.update(ik_report(model, q[te], targets[te], X_nn=(apply(every, X[tr]), q[tr], every), seconds=seconds,
                            warm_start=min(warm_start, len(te)), rng=rng))
    return replace(model, report=report)


@dataclass(frozen=True, eq=False)
class TrainingData:
    """The samples of one training run: branch, joint values q (N, n), their FK targets, the raw
    inputs X (N, d), the split (train, validation, test indices), how many training samples were
    drawn near the box's edges (the first of the training indices), and the generator, to go on."""

    branch: Branch
    q: np.ndarray
    targets: Target
    X: np.ndarray
    split: tuple[np.ndarray, np.ndarray, np.ndarray]
    near_edges: int
    rng: np.random.Generator


@takes_robot
def training_data(robot: Robot, samples: int, branch_spec: str = "elbow+", seed: int = 0) -> TrainingData:
    """The samples `train_ik` trains, validates and tests on, for these arguments (the same every
    time: a benchmark compares other learners on exactly them). Validation and test samples are
    uniform in the branch box; EDGE_SHARE of the training samples lie near its edges."""
    br = branch(robot, branch_spec)
    rng = np.random.default_rng(seed)
    q = sample_joints(br, samples, rng, robot)
    tr, va, te = split(samples, rng)
    edge = round(EDGE_SHARE * len(tr))
    q[tr[:edge]] = sample_joints(br, edge, rng, robot, edge=1.0)
    targets = fk_targets(robot, q)
    return TrainingData(br, q, targets, inputs(robot, targets, front(robot, br), br), (tr, va, te), edge, rng)


TOOL_KEYS = ("position_median", "position_mean", "orientation_median_deg")


def _watch(model: IKModel, targets, watched: dict, tool: dict) -> None:
    """Append one epoch's tool error (FK of the answers) on the watched training and validation targets."""
    from .evaluate import answer_errors

    for part, idx in watched.items():
        pos, ori = answer_errors(model, targets[idx])
        tool[part]["position_median"].append(float(np.median(pos)))
        tool[part]["position_mean"].append(float(np.mean(pos)))
        tool[part]["orientation_median_deg"].append(float(np.degrees(np.median(ori))))
