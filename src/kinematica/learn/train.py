"""Training a learned IK model for one branch of a robot, from its own FK.

`train_ik` samples joint values uniformly in the branch (`sampling.branch`), takes the targets
their FK reaches, splits them 80/10/10 into training, validation and test targets, fits one
ANFIS network per learned joint (all on the same inputs) by hybrid learning with early stopping
on the validation targets, and evaluates the result on the test targets
(`evaluate.ik_report`): the report travels inside the model. Besides the joint RMSE that hybrid
learning minimises, the report's "tool_validation" holds, per epoch, the tool error of the
answers to TOOL_SAMPLE validation targets (FK of the answer against the target: position median
and mean in the length unit, orientation median in degrees) — what a user of the model reads.

Rules: an int R. With d inputs, R = m^d is a grid partition of m memberships per input (few
inputs: 125 = 5³ for a planar arm's (x, y, φ), 81 = 3⁴ for position + pitch); any other R
(or partition="cluster") is R rules at fuzzy c-means centres.
"""

from __future__ import annotations

import time
from typing import Callable

import numpy as np

from ..bounds import EPOCHS, RULES, TRAINING, count
from ..model.coerce import takes_robot
from ..model.robot import Robot
from . import anfis
from .cluster import fuzzy_c_means
from .model import IKModel
from .sampling import ANGULAR, TASKS, LearnError, branch, fk_targets, front, inputs, sample_joints, split, task_of
from .scaling import apply, fit

DEFAULT_RULES = {"planar": 125, "pitch": 81, "pose": 60}
TOOL_SAMPLE = 200  # validation targets whose tool error is measured after every epoch (FK of the
# answers): the median to ~10 %, for ~1 ms of the epoch's work; the curve the user reads
PATIENCE = 3  # epochs without a 0.1 % better validation error before training stops
PARTITIONS = ("auto", "grid", "cluster")
CLUSTER_FUZZINESS = 1.5  # c-means with the usual m = 2 pulls most of 60 centres onto the mean of the KUKA's 6
# inputs; m = 1.3–1.6 spreads them: tool error 3.2 → 2.9 % of the reach, orientation ~16° → 12–14°


def grid_size(d: int, rules: int) -> int | None:
    """m with m^d == rules, or None."""
    m = int(round(rules ** (1.0 / d)))
    for k in (m - 1, m, m + 1):
        if k >= 1 and k ** d == rules:
            return k
    return None


def initial_network(x: np.ndarray, rules: int, outputs: int, shape: str, partition: str,
                    rng: np.random.Generator) -> anfis.Anfis:
    """The untrained network on scaled inputs x (N, d): a grid partition or clustered rules."""
    if partition not in PARTITIONS:
        raise LearnError(f"partition must be one of {', '.join(PARTITIONS)}, got {partition!r}")
    d = x.shape[1]
    m = grid_size(d, rules)
    if partition == "grid" and m is None:
        raise LearnError(f"a grid partition of {d} inputs has m^{d} rules ({', '.join(str(k ** d) for k in range(2, 6))}"
                         f", …), not {rules}")
    if partition != "cluster" and m is not None:
        return anfis.grid(d, m, shape, outputs)
    centres, widths = fuzzy_c_means(x, rules, fuzziness=CLUSTER_FUZZINESS, rng=rng)
    return anfis.clustered(centres, widths, shape, outputs)


def check_counts(samples: int, rules: int, epochs: int, d: int, train_share: float = 0.8,
                 products: int = 0) -> tuple[int, int, int]:
    samples = count(samples, "samples", TRAINING, error=LearnError)
    rules = count(rules, "rules", RULES, error=LearnError)
    epochs = count(epochs, "epochs", EPOCHS, error=LearnError)
    need = rules * (d + products + 1)
    if int(round(train_share * samples)) < need:
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
    docstring (default 125 planar, 81 position + pitch); epochs: at most this many (early
    stopping); shape: "gauss" or "bell"; warm_start: test targets the LM warm-start comparison
    solves (0: none); progress(epoch, epochs, rmse) after every epoch.

    >>> m = train_ik("planar-3r", samples=600, rules=8, epochs=2, warm_start=0)
    >>> m.report["inputs"], m.report["rules"]
    (['x', 'y', 'φ'], 8)
    """
    from .evaluate import answer_errors, ik_report

    task = task_of(robot)
    d = len(TASKS[task])
    samples, rules, epochs = check_counts(samples, DEFAULT_RULES[task] if rules is None else rules, epochs, d)
    warm_start = count(warm_start, "warm_start", TRAINING, minimum=0, error=LearnError)
    br = branch(robot, branch_spec)
    rng = np.random.default_rng(seed)
    q = sample_joints(br, samples, rng, robot)
    targets = fk_targets(robot, q)
    X = inputs(robot, targets, front(robot, br), br)
    tr, va, te = split(samples, rng)
    scaling = fit(X[tr], ANGULAR[task])
    Xs = apply(scaling, X)
    J = br.learned
    start = time.perf_counter()
    net = initial_network(Xs[tr], rules, len(J), shape, partition, rng)
    watched = va[:TOOL_SAMPLE]  # the split is shuffled: its first ones are a random subsample
    tool: dict[str, list[float]] = {"position_median": [], "position_mean": [], "orientation_median_deg": []}

    def watch(epoch_net: anfis.Anfis) -> None:
        pos, ori = answer_errors(IKModel(robot, br, scaling, epoch_net), targets[watched])
        tool["position_median"].append(float(np.median(pos)))
        tool["position_mean"].append(float(np.mean(pos)))
        tool["orientation_median_deg"].append(float(np.degrees(np.median(ori))))

    net, hist = anfis.train(net, Xs[tr], q[tr][:, J], epochs, x_val=Xs[va], y_val=q[va][:, J], patience=PATIENCE,
                            progress=progress, watch=watch)
    seconds = time.perf_counter() - start
    model = IKModel(robot, br, scaling, net)
    report = {"kind": "ik", "robot": robot.name, "task": task, "inputs": list(TASKS[task]), "branch": br.spec,
              "joints": [robot.joint_names[j] for j in J], "rules": net.n_rules,
              "partition": "grid" if grid_size(d, net.n_rules) is not None and partition != "cluster" else "cluster",
              "shape": shape, "samples": samples, "train": len(tr), "validation": len(va), "test": len(te),
              "epochs": len(hist), "max_epochs": epochs, "train_seconds": seconds, "seed": seed,
              "rmse_train": hist[:, 0].tolist(), "rmse_validation": hist[:, 1].tolist(),
              "length_unit": robot.length_unit, "tool_validation": {"count": len(watched), **tool}}
    report.update(ik_report(model, q[te], targets[te], X_nn=(Xs[tr], q[tr]), seconds=seconds,
                            warm_start=min(warm_start, len(te)), rng=rng))
    return IKModel(robot, br, scaling, net, report)
