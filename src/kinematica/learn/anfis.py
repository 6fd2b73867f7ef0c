"""ANFIS: a first-order Sugeno fuzzy system trained by hybrid learning (Jang 1993), in NumPy.

One network maps inputs x (N, d) to one output y (N,) through five layers:

  1. memberships   μ_im(x_i): Gaussian exp(−(x−c)²/(2σ²)) or bell 1/(1 + |(x−c)/σ|^(2b))
  2. firing        w_r = Π_i μ_i,rule[r,i](x_i)                      (product t-norm)
  3. normalising   w̄_r = w_r / Σ_s w_s
  4. consequents   f_r = p_r · x + s_r · (x_a x_b)_pairs + r_r       (first order; products optional)
  5. sum           y = Σ_r w̄_r f_r

Rules come from a grid partition (every combination of m_i memberships per input: few inputs)
or from clusters (one rule per fuzzy c-means centre, each with its own memberships: many
inputs). Hybrid learning alternates a least-squares solve for all consequents (one linear
system; y is linear in them) with Levenberg–Marquardt steps on the premises (c, log σ) with the
consequents held, each taken only when it lowers the error (the damping grows until it does),
so the training error never rises from one epoch to the next; the first epoch is the
least-squares-only fit on the initial memberships, the yardstick of what premise training adds.

Inputs are expected scaled to about [−1, 1] (see `learn.scaling`); several outputs are trained
as independent networks on the same inputs (batched along a leading axis). `products` (pairs of
input indices) add the products x_a x_b to the consequents' regressors: a rule's output stays
linear in its coefficients, so least squares still finds them in one solve, and a function that
is a quadratic form in some inputs (a joint torque in the joint rates) is then exact per rule.

>>> import numpy as np
>>> x = np.linspace(-1, 1, 200)[:, None]
>>> net, hist = train(grid(1, 5), x, np.sin(2 * x[:, 0]), epochs=5)
>>> bool(hist[-1] < 1e-2 and np.all(np.diff(hist[:, 0]) < 0))  # RMSE, epoch by epoch
True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import cast

import numpy as np
from scipy.linalg import cho_factor, cho_solve

from ..errors import KinematicaError

SHAPES = ("gauss", "bell")
BELL_B = 2.0  # the bell's slope exponent b, held fixed (its centre and width are learned)
RIDGE = 1e-10  # relative Tikhonov term on the consequent normal equations: keeps them solvable
# when a rule fires on (almost) no sample, far below any error it could add


class AnfisError(KinematicaError, ValueError):
    """A network or its training data is malformed (shapes, NaN, too few samples for the rules)."""


@dataclass(frozen=True, eq=False)
class Anfis:
    """Parameters of one ANFIS network (or K independent ones: a leading axis K on c, sigma, theta).

    shape: "gauss" or "bell"; c, sigma: (K, d, m) membership centres and widths, m memberships
    per input (grid: shared by the rules; clusters: m = R, one per rule); rules: (R, d) index of
    each rule's membership on each input; theta: (K, R, d + P + 1) consequent coefficients
    (p, s, r); products: (P, 2) input index pairs whose products are regressors (P = 0: the
    classic first-order Sugeno).
    """

    shape: str
    c: np.ndarray
    sigma: np.ndarray
    rules: np.ndarray
    theta: np.ndarray
    products: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), np.int64))

    @property
    def inputs(self) -> int:
        return self.rules.shape[1]

    @property
    def n_rules(self) -> int:
        return self.rules.shape[0]

    @property
    def outputs(self) -> int:
        return self.c.shape[0]

    def arrays(self) -> dict[str, np.ndarray]:
        return {"c": self.c, "sigma": self.sigma, "rules": self.rules, "theta": self.theta,
                "products": self.products}

    @property
    def regressor_count(self) -> int:
        """Coefficients per rule and output: d + P + 1."""
        return self.inputs + len(self.products) + 1

    def with_products(self, pairs) -> Anfis:
        """This network with product regressors `pairs` ((P, 2) input indices) and zero consequents."""
        p = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        if p.size and (p.min() < 0 or p.max() >= self.inputs):
            raise AnfisError(f"products: input indices must lie in 0 … {self.inputs - 1}, got {p.tolist()}")
        K, R = self.theta.shape[:2]
        return replace(self, products=p, theta=np.zeros((K, R, self.inputs + len(p) + 1)))


SPACINGS = ("even", "ends")


def grid(d: int, m: int | list[int], shape: str = "gauss", outputs: int = 1, spacing: str = "even") -> Anfis:
    """A grid-partition network on [−1, 1]^d: m memberships per input (an int or one per input),
    neighbours crossing at 0.5 (each width from the mean gap to its neighbours); Π m_i rules;
    consequents zero. spacing "even": centres evenly spaced; "ends": at the Chebyshev–Lobatto
    points c_k = −cos(πk/(m−1)), gaps ∝ sin(πk/(m−1)): ~π²/m² at the ends against π/m in the
    middle, for a function whose slope grows without bound at the ends of its range (√ at a
    singularity) — the same m fits it there with ~m× finer memberships."""
    # np.ndim tells one count (an int, also NumPy's) from one per input
    ms = [cast(int, m)] * d if np.ndim(m) == 0 else list(cast("list[int]", m))
    if len(ms) != d or any(int(k) < 1 for k in ms):
        raise AnfisError(f"memberships per input: expected {d} counts >= 1, got {m!r}")
    if spacing not in SPACINGS:
        raise AnfisError(f"membership spacing must be one of {', '.join(SPACINGS)}, got {spacing!r}")
    M = max(ms)
    c = np.zeros((d, M))
    s = np.ones((d, M))
    for i, k in enumerate(ms):
        if k == 1 or spacing == "even":
            c[i, :k] = np.linspace(-1, 1, k) if k > 1 else 0.0
            h = np.full(k, 2.0 / (k - 1) if k > 1 else 2.0)
        else:
            c[i, :k] = -np.cos(np.pi * np.arange(k) / (k - 1))
            gap = np.diff(c[i, :k])
            h = np.concatenate([gap[:1], (gap[:-1] + gap[1:]) / 2, gap[-1:]])
        s[i, :k] = h / (2 * np.sqrt(2 * np.log(2))) if shape == "gauss" else h / 2  # μ = 0.5 half-way
    rules = np.stack(np.meshgrid(*[np.arange(k) for k in ms], indexing="ij"), -1).reshape(-1, d)
    return _make(shape, c, s, rules, outputs)


def clustered(centres: np.ndarray, widths: np.ndarray, shape: str = "gauss", outputs: int = 1) -> Anfis:
    """A network with one rule per cluster: centres, widths (R, d) in scaled input units."""
    R, d = centres.shape
    rules = np.tile(np.arange(R)[:, None], (1, d))
    return _make(shape, centres.T.copy(), np.maximum(widths.T, 1e-3), rules, outputs)


def _make(shape: str, c: np.ndarray, s: np.ndarray, rules: np.ndarray, K: int) -> Anfis:
    if shape not in SHAPES:
        raise AnfisError(f"membership shape must be one of {', '.join(SHAPES)}, got {shape!r}")
    R, d = rules.shape
    return Anfis(shape, np.tile(c, (K, 1, 1)), np.tile(s, (K, 1, 1)), rules.astype(np.int64),
                 np.zeros((K, R, d + 1)))


def log_memberships(net: Anfis, x: np.ndarray) -> np.ndarray:
    """Layer 1 in logs: log μ (K, N, d, m) of every input sample on every membership (Gaussian:
    −z²/2; bell: −log(1 + |z|^(2b)), z = (x − c)/σ) — logs, so that far from every centre the
    firing strengths stay comparable instead of all underflowing to 0."""
    z = (x[None, :, :, None] - net.c[:, None]) / net.sigma[:, None]
    if net.shape == "gauss":
        return -0.5 * z * z
    return -np.log1p(np.abs(z) ** (2 * BELL_B))


def memberships(net: Anfis, x: np.ndarray) -> np.ndarray:
    """Layer 1: μ (K, N, d, m) of every input sample on every membership."""
    return np.exp(log_memberships(net, x))


def firing(net: Anfis, logmu: np.ndarray) -> np.ndarray:
    """Layer 2: w (K, N, R) = Π_i μ_i,rule[r,i], from the logs, scaled per sample so that the
    strongest rule fires 1 (layer 3 divides the scale out again)."""
    s = np.take(logmu[:, :, 0], net.rules[:, 0], axis=-1)
    for i in range(1, net.inputs):  # one input at a time: no (K, N, R, d) array
        s += np.take(logmu[:, :, i], net.rules[:, i], axis=-1)
    s -= s.max(axis=-1, keepdims=True)
    return np.exp(s, out=s)


def regressors(x: np.ndarray, products: np.ndarray | None = None) -> np.ndarray:
    """[x, x_a x_b for each pair (a, b) of products, 1] (N, d + P + 1): the consequents' regressors."""
    if products is None or len(products) == 0:
        return np.concatenate([x, np.ones((len(x), 1))], axis=1)
    return np.concatenate([x, x[:, products[:, 0]] * x[:, products[:, 1]], np.ones((len(x), 1))], axis=1)


def forward(net: Anfis, x: np.ndarray) -> dict[str, np.ndarray]:
    """Every layer for inputs x (N, d): mu (K, N, d, m), w (scaled firing strengths), wbar,
    f (K, N, R), y (K, N)."""
    logmu = log_memberships(net, x)
    w = firing(net, logmu)
    wbar = w / w.sum(axis=-1, keepdims=True)
    f = regressors(x, net.products) @ net.theta.transpose(0, 2, 1)  # (K, N, R)
    return {"mu": np.exp(logmu), "w": w, "wbar": wbar, "f": f, "y": np.einsum("knr,knr->kn", wbar, f)}


# Working memory of one chunk of `predict`: the layers of a million rows of a dynamics model
# (K = 6 outputs, 18 inputs) are ~4 GB at once; in chunks they never pass this.
PREDICT_BYTES = 64 * 2**20


def predict(net: Anfis, x: np.ndarray) -> np.ndarray:
    """Outputs (N, K) for inputs x (N, d), computed in chunks of rows whose layers (`forward`:
    μ and log μ (K, d, m), w, w̄ and f (K, R) per row, 8 bytes each) stay within PREDICT_BYTES.
    Rows are independent, so a chunk's answer is the whole batch's for those rows."""
    x = check_inputs(net, x)
    K, d, m = net.c.shape
    per_row = 8 * (2 * K * d * m + 3 * K * net.n_rules + net.regressor_count)
    rows = max(1, PREDICT_BYTES // per_row)
    if len(x) <= rows:
        return forward(net, x)["y"].T
    out = np.empty((len(x), K))
    for a in range(0, len(x), rows):
        out[a:a + rows] = forward(net, x[a:a + rows])["y"].T
    return out


def check_inputs(net: Anfis, x) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    if x.ndim != 2 or x.shape[1] != net.inputs:
        raise AnfisError(f"inputs: expected shape (N, {net.inputs}), got {x.shape}")
    if not np.all(np.isfinite(x)):
        raise AnfisError("inputs contain NaN or infinity")
    return x


def consequent_systems(wbar: np.ndarray, x: np.ndarray, products: np.ndarray | None = None) -> list:
    """Per output k: (A_k, solve_k), A_k = w̄_k ⊗ φ (N, R(d+P+1)) the consequents' design matrix
    (∂ŷ_k/∂θ_k, φ the regressors) and solve_k(b) = (A_kᵀA_k + ridge)⁻¹ b from one Cholesky
    factorisation — shared by the least-squares pass and the premise step's Schur complement."""
    K, N, _R = wbar.shape
    X1 = regressors(x, products)
    out = []
    for k in range(K):
        A = (wbar[k][:, :, None] * X1[:, None, :]).reshape(N, -1)
        G = A.T @ A
        G[np.diag_indices_from(G)] += RIDGE * max(np.trace(G) / len(G), 1e-300)
        try:
            factor = cho_factor(G)
            out.append((A, lambda b, f=factor: cho_solve(f, b)))
        except np.linalg.LinAlgError:  # no sample reaches some rules at all: the pseudo-inverse
            pinv = np.linalg.pinv(G, hermitian=True)
            out.append((A, lambda b, P=pinv: P @ b))
    return out


def least_squares(wbar: np.ndarray, x: np.ndarray, y: np.ndarray, products: np.ndarray | None = None,
                  systems: list | None = None) -> np.ndarray:
    """Consequents θ (K, R, d + P + 1) minimising Σ_n (y_kn − Σ_r w̄_knr φ(x_n)·θ_kr)², φ the
    regressors: one normal-equation solve per output (`consequent_systems`, or the given ones)."""
    systems = consequent_systems(wbar, x, products) if systems is None else systems
    R = wbar.shape[2]
    return np.stack([solve(A.T @ y[:, k]).reshape(R, -1) for k, (A, solve) in enumerate(systems)])


def mse(net: Anfis, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Mean squared error per output (K,) on (x (N, d), y (N, K))."""
    return np.mean((forward(net, x)["y"] - y.T) ** 2, axis=1)


def premise_jacobian(net: Anfis, x: np.ndarray, layers: dict, k: int) -> np.ndarray:
    """∂ŷ_k/∂(c, log σ) (N, 2·d·m) of output k with the consequents held: columns c (d·m, row
    major) then log σ (log: a step in it keeps σ > 0).

    ∂ŷ/∂log w_r = w̄_r (f_r − ŷ) (layer 3's quotient rule), and log w_r = Σ_i log μ_i,rule[r,i], so
    ∂ŷ/∂c_im = Σ_{r uses (i,m)} w̄_r (f_r − ŷ) ∂log μ_im/∂c_im, and the same for log σ_im with
    ∂log μ/∂log σ = σ ∂log μ/∂σ (Gaussian: z², bell: 2b|z|^2b/(1 + |z|^2b))."""
    d, m = net.c.shape[1:]
    Jr = (layers["f"][k] - layers["y"][k][:, None]) * layers["wbar"][k]  # (N, R)
    z = (x[:, :, None] - net.c[k][None]) / net.sigma[k][None]  # (N, d, m)
    if net.shape == "gauss":
        dlog_dc, dlog_dls = z / net.sigma[k][None], z * z
    else:
        a = np.abs(z) ** (2 * BELL_B)
        g = 2 * BELL_B * a / (1 + a)
        with np.errstate(divide="ignore", invalid="ignore"):
            dlog_dc = np.where(z != 0, g / (z * net.sigma[k][None]), 0.0)
        dlog_dls = g
    J = np.empty((len(x), 2, d, m))
    for i in range(d):
        onehot = np.zeros((net.n_rules, m))
        onehot[np.arange(net.n_rules), net.rules[:, i]] = 1.0
        H = Jr @ onehot  # (N, m): the sum over the rules that use each membership of input i
        J[:, 0, i], J[:, 1, i] = H * dlog_dc[:, i], H * dlog_dls[:, i]
    return J.reshape(len(x), -1)


def premise_gradient(net: Anfis, x: np.ndarray, y: np.ndarray, layers: dict) -> tuple[np.ndarray, np.ndarray]:
    """∂E/∂c, ∂E/∂σ (K, d, m) of E = mean (ŷ − y)² with the consequents held: (2/N) Jᵀ e with J
    from `premise_jacobian` (∂/∂σ = ∂/∂log σ / σ)."""
    K, N, _ = layers["wbar"].shape
    e = layers["y"] - y.T
    g = np.stack([(2.0 / N) * premise_jacobian(net, x, layers, k).T @ e[k] for k in range(K)])
    g = g.reshape((K, 2) + net.c.shape[1:])
    return g[:, 0], g[:, 1] / net.sigma


LM_DAMPING = 1e-2  # the Marquardt λ the premise steps start from (relative to diag JᵀJ)
LM_RANGE = (1e-9, 1e9)  # λ stays within: at a minimum every trial fails and λ would grow without end;
# an output whose λ reached the top is left alone (its trials would cost every output's work for nothing)
LM_TRIES = 6  # damping raises (×4 each) per premise step before the step is given up
MAX_LOG_STEP = 1.0  # a premise step changes a width by at most e^±1 and a centre by at most 1
# (scaled units, the whole input span being 2): a step the quadratic model trusts too far is cut


def train(net: Anfis, x: np.ndarray, y: np.ndarray, epochs: int = 20, *, x_val: np.ndarray | None = None,
          y_val: np.ndarray | None = None, patience: int | None = None,
          progress: Callable[[int, int, float], None] | None = None,
          watch: Callable[[Anfis], None] | None = None) -> tuple[Anfis, np.ndarray]:
    """Hybrid learning for at most `epochs` epochs on x (N, d), y (N,) or (N, K).

    Epoch 1 solves the consequents by least squares on the initial memberships (the
    least-squares-only fit: history row 0). Every later epoch first takes one
    Levenberg–Marquardt step on the premises (c, log σ) per output, the consequents following
    it linearly (`_premise_step`: the consequents eliminated by their normal equations, so the
    step sees what the next least-squares pass will make of it), kept only if it lowers that
    output's error (else λ ×4, up to LM_TRIES times; λ ÷3 after a kept step) — and then solves
    the consequents again (kept only if they lower the error: they are its exact
    minimiser up to the tiny ridge). So the training error never rises from one epoch to the next.
    With a validation set the parameters of the epoch with the lowest validation error (summed
    over the outputs) are returned, and training stops once `patience` epochs in a row have not
    lowered it by 0.1 % (early stopping; None: run every epoch). Returns the network and the
    history (epochs, K) of training RMSE (with validation: (epochs, 2, K), [train, validation]).
    progress(epoch, epochs, rmse) is called after every epoch, and watch(net) with that epoch's
    network (to measure it in the caller's terms).
    """
    x = check_inputs(net, x)
    y = np.asarray(y, dtype=float).reshape(len(x), -1)
    if y.shape[1] != net.outputs:
        raise AnfisError(f"targets: expected {net.outputs} output(s) per sample, got {y.shape[1]}")
    if not np.all(np.isfinite(y)):
        raise AnfisError("targets contain NaN or infinity")
    need = net.n_rules * net.regressor_count
    if len(x) < need:
        raise AnfisError(f"{len(x)} samples are too few for {net.n_rules} rules with {net.regressor_count - 1} regressors: the "
                         f"consequents have {need} coefficients per output; give at least {need} samples or fewer rules")
    val_set = _validation(net, x_val, y_val)
    lam = np.full(net.outputs, LM_DAMPING)
    hist, best, best_err, stale = [], net, np.inf, 0
    net, err, systems = _least_squares_pass(net, x, y)
    for epoch in range(epochs):
        if epoch > 0:
            net, err, systems, lam = _premise_step(net, x, y, err, lam, systems)
        row = np.sqrt(err)
        if val_set is not None:
            val = np.sqrt(mse(net, *val_set))
            row = np.stack([row, val])
            stale = 0 if val.sum() < (1 - 1e-3) * best_err else stale + 1
            if val.sum() < best_err:
                best, best_err = net, val.sum()
        hist.append(row)
        if watch is not None:
            watch(net)
        if progress is not None:
            progress(epoch + 1, epochs, float(np.sqrt(np.mean(err))))
        if patience is not None and stale >= patience:
            break
    return (best if val_set is not None else net), np.array(hist)


def _validation(net: Anfis, x_val: np.ndarray | None, y_val: np.ndarray | None) -> tuple[np.ndarray, np.ndarray] | None:
    """The validation set (x, y) of `train`, or None without one; AnfisError for half of one."""
    if x_val is None and y_val is None:
        return None
    if x_val is None or y_val is None:
        raise AnfisError("validation set: give both x_val and y_val, or neither")
    x_val = check_inputs(net, x_val)
    return x_val, np.asarray(y_val, float).reshape(len(x_val), -1)


def _least_squares_pass(net: Anfis, x, y):
    """The consequents by least squares on the current memberships: (net, its error (K,), systems)."""
    wbar = forward(net, x)["wbar"]
    systems = consequent_systems(wbar, x, net.products)
    net = replace(net, theta=least_squares(wbar, x, y, systems=systems))
    return net, mse(net, x, y), systems


def _premise_step(net: Anfis, x, y, err, lam, systems):
    """One Levenberg–Marquardt step on the premises of every output (see `train`), for the error
    with the consequents at their least-squares optimum (variable projection): the Gauss–Newton
    model of ‖e + A δθ + J δp‖² with δθ = −G⁻¹Aᵀ(e + J δp) eliminated, G = AᵀA, leaves the Schur
    complement S = JᵀJ − JᵀA G⁻¹ AᵀJ and (S + λ·diag S) δp = −(Jᵀe − JᵀA G⁻¹ Aᵀe). A trial is
    judged after a fresh least-squares pass, and kept per output if it lowers that output's error."""
    todo = lam < LM_RANGE[1]  # at the ceiling, every step of that output has failed ~18 times in a row: a minimum
    if not todo.any():
        return net, err, systems, lam
    layers = forward(net, x)
    e = layers["y"] - y.T
    d, m = net.c.shape[1:]
    parts = {}
    for k in np.flatnonzero(todo):
        A, solve = systems[k]
        J = premise_jacobian(net, x, layers, int(k))
        B = A.T @ J
        GB = solve(B)
        S = J.T @ J - B.T @ GB
        D = np.maximum(np.diag(S), 1e-12 * max(float(np.trace(S)) / len(S), 1e-300))
        parts[k] = (S, J.T @ e[k] - GB.T @ (A.T @ e[k]), D)
    systems, err, lam = list(systems), err.copy(), lam.copy()
    for _ in range(LM_TRIES):
        idx = np.flatnonzero(todo)  # only these outputs' trials are computed: the others' would be wasted work
        dp = np.stack([np.clip(np.linalg.solve(parts[k][0] + lam[k] * np.diag(parts[k][2]), -parts[k][1]),
                               -MAX_LOG_STEP, MAX_LOG_STEP).reshape(2, d, m) for k in idx])
        sub = Anfis(net.shape, net.c[idx] + dp[:, 0], net.sigma[idx] * np.exp(dp[:, 1]), net.rules, net.theta[idx],
                    net.products)
        trial, trial_err, trial_systems = _least_squares_pass(sub, x, y[:, idx])
        good = trial_err < err[idx]
        keep = idx[good]
        c, sigma, theta = net.c.copy(), net.sigma.copy(), net.theta.copy()
        c[keep], sigma[keep], theta[keep] = trial.c[good], trial.sigma[good], trial.theta[good]
        net = Anfis(net.shape, c, sigma, net.rules, theta, net.products)
        for i in np.flatnonzero(good):
            systems[idx[i]] = trial_systems[i]
        err[keep] = trial_err[good]
        lam[idx] = np.clip(np.where(good, lam[idx] / 3, lam[idx] * 4), *LM_RANGE)
        todo[keep] = False
        if not todo.any():
            break
    return net, err, systems, lam
