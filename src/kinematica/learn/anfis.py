"""ANFIS: a first-order Sugeno fuzzy system trained by hybrid learning (Jang 1993), in NumPy.

One network maps inputs x (N, d) to one output y (N,) through five layers:

  1. memberships   μ_im(x_i): Gaussian exp(−(x−c)²/(2σ²)) or bell 1/(1 + |(x−c)/σ|^(2b))
  2. firing        w_r = Π_i μ_i,rule[r,i](x_i)                      (product t-norm)
  3. normalising   w̄_r = w_r / Σ_s w_s
  4. consequents   f_r = p_r · x + s_r · (x_a x_b)_pairs + r_r       (first order; products optional)
  5. sum           y = Σ_r w̄_r f_r

Rules come from a grid partition (every combination of m_i memberships per input: few inputs)
or from clusters (one rule per fuzzy c-means centre, each with its own memberships: many
inputs). Hybrid learning alternates, every epoch, a least-squares solve for all consequents
(one linear system; y is linear in them) and a gradient step on the premises (c, σ) with the
consequents held, taken only when it lowers the error (the step halves until it does), so the
training error never rises from one epoch to the next.

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

from ..errors import KinematicaError

from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np

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

    def with_products(self, pairs) -> "Anfis":
        """This network with product regressors `pairs` ((P, 2) input indices) and zero consequents."""
        p = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        if p.size and (p.min() < 0 or p.max() >= self.inputs):
            raise AnfisError(f"products: input indices must lie in 0 … {self.inputs - 1}, got {p.tolist()}")
        K, R = self.theta.shape[:2]
        return replace(self, products=p, theta=np.zeros((K, R, self.inputs + len(p) + 1)))


def grid(d: int, m: "int | list[int]", shape: str = "gauss", outputs: int = 1) -> Anfis:
    """A grid-partition network on [−1, 1]^d: m memberships per input (an int or one per input),
    evenly spaced, neighbours crossing at 0.5; Π m_i rules; consequents zero."""
    ms = [m] * d if np.ndim(m) == 0 else list(m)
    if len(ms) != d or any(int(k) < 1 for k in ms):
        raise AnfisError(f"memberships per input: expected {d} counts >= 1, got {m!r}")
    M = max(ms)
    c = np.zeros((d, M))
    s = np.ones((d, M))
    for i, k in enumerate(ms):
        c[i, :k] = np.linspace(-1, 1, k) if k > 1 else 0.0
        h = 2.0 / (k - 1) if k > 1 else 2.0
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


def least_squares(wbar: np.ndarray, x: np.ndarray, y: np.ndarray, products: np.ndarray | None = None) -> np.ndarray:
    """Consequents θ (K, R, d + P + 1) minimising Σ_n (y_kn − Σ_r w̄_knr φ(x_n)·θ_kr)², φ the
    regressors: one normal-equation solve per output (A = w̄ ⊗ φ, (N, R(d+P+1)))."""
    K, N, R = wbar.shape
    X1 = regressors(x, products)
    out = np.empty((K, R, X1.shape[1]))
    for k in range(K):
        A = (wbar[k][:, :, None] * X1[:, None, :]).reshape(N, -1)
        G = A.T @ A
        G[np.diag_indices_from(G)] += RIDGE * max(np.trace(G) / len(G), 1e-300)
        try:
            out[k] = np.linalg.solve(G, A.T @ y[:, k]).reshape(R, -1)
        except np.linalg.LinAlgError:
            out[k] = np.linalg.lstsq(A, y[:, k], rcond=None)[0].reshape(R, -1)
    return out


def mse(net: Anfis, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Mean squared error per output (K,) on (x (N, d), y (N, K))."""
    return np.mean((forward(net, x)["y"] - y.T) ** 2, axis=1)


def premise_gradient(net: Anfis, x: np.ndarray, y: np.ndarray, layers: dict) -> tuple[np.ndarray, np.ndarray]:
    """∂E/∂c, ∂E/∂σ (K, d, m) of E = mean (ŷ − y)² with the consequents held.

    ∂ŷ/∂w_r = (f_r − ŷ)/Σw, ∂w_r/∂μ_im = w_r/μ_im for the rules using membership m on input i,
    so ∂E/∂c_im = Σ_n Σ_{r uses (i,m)} (2/N)(ŷ−y)(f_r−ŷ) w̄_r ∂log μ_im/∂c_im (same for σ)."""
    K, N, R = layers["wbar"].shape
    e = layers["y"] - y.T  # (K, N)
    G = (2.0 / N) * e[:, :, None] * (layers["f"] - layers["y"][:, :, None]) * layers["wbar"]  # (K, N, R)
    d, m = net.c.shape[1:]
    z = (x[None, :, :, None] - net.c[:, None]) / net.sigma[:, None]  # (K, N, d, m)
    if net.shape == "gauss":
        dlog_dc, dlog_ds = z / net.sigma[:, None], z * z / net.sigma[:, None]
    else:
        a = np.abs(z) ** (2 * BELL_B)
        g = 2 * BELL_B * a / (1 + a)
        with np.errstate(divide="ignore", invalid="ignore"):
            dlog_dc = np.where(z != 0, g / (z * net.sigma[:, None]), 0.0)
        dlog_ds = g / net.sigma[:, None]
    gc, gs = np.zeros((K, d, m)), np.zeros((K, d, m))
    for i in range(d):
        onehot = np.zeros((R, m))
        onehot[np.arange(R), net.rules[:, i]] = 1.0
        H = G @ onehot  # (K, N, m): the sum over the rules that use each membership
        gc[:, i] = np.einsum("knm,knm->km", H, dlog_dc[:, :, i])
        gs[:, i] = np.einsum("knm,knm->km", H, dlog_ds[:, :, i])
    return gc, gs


def train(net: Anfis, x: np.ndarray, y: np.ndarray, epochs: int = 20, *, step: float = 0.05,
          x_val: np.ndarray | None = None, y_val: np.ndarray | None = None, patience: int | None = None,
          progress: Callable[[int, int, float], None] | None = None,
          watch: Callable[[Anfis], None] | None = None) -> tuple[Anfis, np.ndarray]:
    """Hybrid learning for `epochs` epochs on x (N, d), y (N,) or (N, K).

    Each epoch: consequents by least squares (kept only if they lower the error: they are its
    exact minimiser up to the tiny ridge), then one premise step −κ·g/‖g‖ per output, halved up
    to 8 times until it lowers that output's error; κ grows by 10 % after an accepted step.
    step: the initial κ in scaled input units. With a validation set the parameters of the
    epoch with the lowest validation error are returned, and training stops once `patience`
    epochs in a row have not lowered it by 0.1 % (early stopping; None: run every epoch).
    Returns the network and the history (epochs, K) of training RMSE (with validation: (epochs,
    2, K), [train, validation]). progress(epoch, epochs, rmse) is called after every epoch, and
    watch(net) with that epoch's network (to measure it in the caller's terms).
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
    kappa = np.full(net.outputs, float(step))
    hist, best, best_err, stale = [], net, np.inf, 0
    err = mse(net, x, y)
    for epoch in range(epochs):
        layers = forward(net, x)
        cand = replace(net, theta=least_squares(layers["wbar"], x, y, net.products))
        cand_err = mse(cand, x, y)
        keep = cand_err <= err
        net = replace(net, theta=np.where(keep[:, None, None], cand.theta, net.theta))
        err = np.where(keep, cand_err, err)
        net, err, kappa = _premise_step(net, x, y, err, kappa)
        row = np.sqrt(err)
        if x_val is not None:
            val = np.sqrt(mse(net, check_inputs(net, x_val), np.asarray(y_val, float).reshape(len(x_val), -1)))
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
    return (best if x_val is not None else net), np.array(hist)


def _premise_step(net: Anfis, x, y, err, kappa):
    """One backtracking gradient step on the premises of every output (see `train`)."""
    gc, gs = premise_gradient(net, x, y, forward(net, x))
    norm = np.sqrt((gc ** 2).sum(axis=(1, 2)) + (gs ** 2).sum(axis=(1, 2)))
    todo = norm > 0
    scale = np.where(todo, kappa / np.where(todo, norm, 1.0), 0.0)
    for _ in range(8):
        if not todo.any():
            break
        s = scale[:, None, None] * todo[:, None, None]
        cand = replace(net, c=net.c - s * gc, sigma=np.maximum(net.sigma - s * gs, 1e-3))
        cand_err = mse(cand, x, y)
        good = todo & (cand_err < err)
        g3 = good[:, None, None]
        net = replace(net, c=np.where(g3, cand.c, net.c), sigma=np.where(g3, cand.sigma, net.sigma))
        err = np.where(good, cand_err, err)
        kappa = np.where(good, kappa * 1.1, kappa)
        todo &= ~good
        scale = scale / 2
    kappa = np.where(todo, kappa / 2, kappa)  # no step helped: start smaller next epoch
    return net, err, kappa
