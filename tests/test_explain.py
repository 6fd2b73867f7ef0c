"""The explain layer: closed forms from each robot's own table, the step-by-step documents and
their renderers (text, Markdown, offline HTML, LaTeX), and `kinematica explain`."""

from __future__ import annotations

import re
from collections import Counter
from html.parser import HTMLParser

import numpy as np
import pytest

sp = pytest.importorskip("sympy")  # the explain extra: skipped in a core-only install
pytest.importorskip("latex2mathml")
pytest.importorskip("mathjax")

import kinematica as km
from kinematica.cli import main
from kinematica.explain import (compile_source, explain, fk_source, fk_symbolic, jacobian_source,
                                jacobian_symbolic, joint_symbols, render)
from kinematica.explain.dynamics import newton_euler_passes
from kinematica.explain.notation import latex
from kinematica.explain.symbolic import chain, numeric_function

RNG = np.random.default_rng(7)
PAPER000 = dict(target=[-10, 35], q0=np.radians([30, 30, 20]))


def _random_q(robot, k=4):
    return RNG.uniform(-np.pi, np.pi, (k, robot.n))


def _prismatic_robots():
    I = km.Inertial.cylinder(1.5, 0.04, 0.3, "z", (0.0, 0.0, -0.1))
    dh = km.from_dh([{"d": 0.3, "alpha": 90, "inertial": I},
                     {"type": "prismatic", "d": 0.2, "theta": 90, "alpha": -90, "a": 0.05, "inertial": I},
                     {"a": 0.25, "theta": 30, "inertial": I}], deg=True, name="rpr")
    mdh = km.from_mdh([{"d": 0.3}, {"type": "prismatic", "alpha": -90, "d": 0.1, "theta": 45},
                       {"alpha": 90, "a": 0.2}], deg=True, name="rpr-mdh")
    return [dh, mdh]


# --- the symbolic engine ----------------------------------------------------------------------
@pytest.mark.parametrize("name", km.robot_names())
def test_symbolic_fk_equals_numeric_fk_for_every_bundled_robot(name):
    robot = km.load(name)
    for params in ("numeric", "symbolic"):
        f = numeric_function(chain(robot, params), fk_symbolic(robot, params))
        for q in _random_q(robot):
            np.testing.assert_allclose(np.array(f(q), dtype=float), km.fk(robot, q), atol=1e-9)


@pytest.mark.parametrize("robot", _prismatic_robots(), ids=lambda r: r.name)
def test_symbolic_fk_and_jacobian_with_prismatic_joints(robot):
    ch = chain(robot)
    assert ch.q[1].name == "d_2"
    fT, fJ = numeric_function(ch, ch.T), numeric_function(ch, jacobian_symbolic(robot))
    for q in _random_q(robot):
        np.testing.assert_allclose(np.array(fT(q), dtype=float), km.fk(robot, q), atol=1e-12)
        np.testing.assert_allclose(np.array(fJ(q), dtype=float), km.jacobian(robot, q), atol=1e-12)


def test_symbolic_chain_of_a_urdf_robot_with_rpy_origins(tmp_path):
    src = km.load("ur5")
    path = tmp_path / "ur5.urdf"
    km.save(src, path)
    robot = km.load(path)
    assert robot.table.kind == "frames"
    ch = chain(robot)
    f = numeric_function(ch, ch.T)
    for q in _random_q(robot):
        np.testing.assert_allclose(np.array(f(q), dtype=float), km.fk(robot, q), atol=1e-9)
    assert not [a for a in ch.T.atoms(sp.Float)], "exact entries only"


@pytest.mark.parametrize("name", ["planar-3r", "arm-5dof", "puma560", "kuka-kr6-r900"])
def test_symbolic_jacobian_equals_numeric(name):
    robot = km.load(name)
    f = numeric_function(chain(robot), jacobian_symbolic(robot))
    for q in _random_q(robot, 3):
        np.testing.assert_allclose(np.array(f(q), dtype=float), km.jacobian(robot, q), atol=1e-9)


def test_paper002_corrected_closed_forms_come_out_of_the_engine():
    """DIGEST §3.3: for Table 1's α4 = −π/2, n, o, a, p in c_i, s_i, c_234, s_234."""
    robot = km.load("arm-5dof")
    T = fk_symbolic(robot, "symbolic")
    t1, t2, t3, t4, t5 = joint_symbols(robot)
    a2, a3, d1, d5 = sp.symbols("a_2 a_3 d_1 d_5", real=True)
    c, s = sp.cos, sp.sin
    c234, s234, c23, s23 = c(t2 + t3 + t4), s(t2 + t3 + t4), c(t2 + t3), s(t2 + t3)
    expected = sp.Matrix([
        [c(t1) * c(t5) * c234 - s(t1) * s(t5), -s(t1) * c(t5) - c(t1) * s(t5) * c234, -c(t1) * s234,
         c(t1) * (a2 * c(t2) + a3 * c23 - d5 * s234)],
        [s(t1) * c(t5) * c234 + c(t1) * s(t5), c(t1) * c(t5) - s(t1) * s(t5) * c234, -s(t1) * s234,
         s(t1) * (a2 * c(t2) + a3 * c23 - d5 * s234)],
        [c(t5) * s234, -s(t5) * s234, c234, d1 + a2 * s(t2) + a3 * s23 + d5 * c234],
        [0, 0, 0, 1]])
    diff = (T - expected).applyfunc(lambda e: sp.simplify(sp.expand_trig(e)))
    assert diff == sp.zeros(4, 4)
    assert chain(robot, "symbolic").values == {d1: sp.Rational(71, 1000), a2: sp.Rational(246, 1000),
                                               a3: sp.Rational(163, 1000), d5: sp.Rational(165, 1000)}


@pytest.mark.parametrize("params", ["symbolic", "numeric"])
def test_printed_closed_forms_have_no_float_artefacts(params):
    robot = km.load("arm-5dof")
    T = fk_symbolic(robot, params)
    tex = " ".join(latex(e) for e in T)
    assert not re.search(r"\b1\.0\b|\d\.\d*e-|e-1\d|6\.12|0\.0{6,}|\.\d{9,}", tex), tex
    assert "1.0" not in tex and "\\cdot" not in tex
    assert ("0.246" in tex) == (params == "numeric")


def test_exact_constants():
    from kinematica.explain.exact import angle, entry, for_display, length

    assert angle(1.5707963267948966) == sp.pi / 2 and angle(90, "deg") == sp.pi / 2
    assert entry(6.123233995736766e-17) == 0 and entry(0.7071067811865476) == sp.sqrt(2) / 2
    assert length(0.246) == sp.Rational(123, 500) and length(0.5) == sp.Rational(1, 2)
    assert str(for_display(length(0.246))) == "0.246"


@pytest.mark.parametrize("name", km.robot_names())
def test_generated_python_source_equals_numeric_fk(name):
    robot = km.load(name)
    for params in ("numeric", "symbolic"):
        f = compile_source(fk_source(robot, params, name="fk_gen"), "fk_gen")
        for q in _random_q(robot, 3):
            np.testing.assert_allclose(f(q), km.fk(robot, q), atol=1e-9)


def test_generated_jacobian_source():
    robot = km.load("puma560")
    f = compile_source(jacobian_source(robot, name="J"), "J")
    for q in _random_q(robot, 3):
        np.testing.assert_allclose(f(q), km.jacobian(robot, q), atol=1e-9)


# --- the documents ----------------------------------------------------------------------------
def _paper000_ik():
    robot = km.load("planar-3r")
    return robot, explain(robot, "ik", deg=True, **PAPER000)


def test_ik_explanation_lists_exactly_the_iterations_the_solver_ran():
    robot, doc = _paper000_ik()
    res = km.ik(robot, PAPER000["target"], PAPER000["q0"], limits="clip", history=True)
    table = next(st.table for sec in doc.sections if sec.title == "The iterations" for st in sec.steps if st.table)
    assert len(table.rows) == len(res.history) == res.iterations
    np.testing.assert_allclose([r[1] for r in table.rows], [h["error"] for h in res.history])
    np.testing.assert_allclose([r[4] for r in table.rows], [h["error_after"] for h in res.history])
    assert [r[5] for r in table.rows] == ["accepted" if h["accepted"] else "rejected" for h in res.history]
    heads = [st.heading for sec in doc.sections for st in sec.steps if st.heading.startswith("Iteration")]
    assert heads == [f"Iteration {k}" for k in range(1, len(res.history) + 1)]
    text = " ".join(render(doc, "text").split())
    assert f"The solver ran {len(res.history)} iterations" in text
    assert "36.4 mm ≤ 60 mm" in text and "42.53" in text
    assert "Stop reason: converged" in text and "38.509°, 68.800°, 62.749°" in text
    assert "clipped into the joint limits" in text  # the first step leaves the limits


def test_ik_steps_are_the_solvers_steps():
    """The explanation's (JᵀJ + λI)⁻¹ Jᵀe at each θ is the step the solver took."""
    robot, doc = _paper000_ik()
    steps = [q for sec in doc.sections for st in sec.steps for q in st.values if q.name.text == "Δθ"]
    res = km.ik(robot, PAPER000["target"], PAPER000["q0"], limits="clip", history=True)
    np.testing.assert_allclose(np.radians(np.array([s.value for s in steps])), [h["dq"] for h in res.history])
    mats = [q for sec in doc.sections for st in sec.steps for q in st.values if q.name.text == "JᵀJ + λI"]
    b = [q for sec in doc.sections for st in sec.steps for q in st.values if q.name.text == "Jᵀe"]
    assert len(mats) == len(b) == len(res.history)
    for A, bb, h in zip(mats, b, res.history):
        # The late steps' JᵀJ + λI has cond up to ~1e10, so two correct solves of it may differ by
        # cond·eps ≈ 1e-6 relative between LAPACK builds: compare the backward error instead,
        # which a stable solve keeps at O(n·eps) whatever the conditioning (measured: ≤ 2e-16).
        A, bb, dq = np.asarray(A.value, float), np.asarray(bb.value, float), h["dq"]
        scale = np.linalg.norm(A, 2) * np.linalg.norm(dq) + np.linalg.norm(bb)
        assert np.linalg.norm(A @ dq - bb) <= 1e-12 * scale


def test_ik_explanation_of_an_unreachable_target():
    doc = explain(km.load("planar-3r"), "ik", target=[70, 10])
    text = render(doc, "text")
    assert "out of reach" in text and "The iterations" not in text


def test_fk_text_of_arm_5dof_shows_its_closed_forms():
    text = render(explain(km.load("arm-5dof"), "fk", q=np.radians([10, 20, 30, 40, 50])), "text")
    for line in ["n_x = c1·c5·c234 − s1·s5", "n_z = c5·s234", "o_x = −c1·s5·c234 − s1·c5", "a_x = −c1·s234",
                 "a_z = c234", "p_x = c1·(a2·c2 + a3·c23 − d5·s234)", "p_z = d1 + a2·s2 + a3·s23 + d5·c234",
                 "c234 = cos(θ2 + θ3 + θ4)", "d1 = 0.071 m"]:
        assert line in text, line
    assert "def fk_arm_5dof(q):" in text


def test_fk_of_a_planar_arm_shows_paper000_math_tab():
    text = render(explain(km.load("planar-3r"), "fk", q=np.radians([30, 30, 20])), "text")
    assert "φk = θ1 + … + θk" in text and "p_x = L1·c1 + L2·c12 + L3·c123" in text
    assert "30.7935" in text and "47.0167" in text


def test_jacobian_explanation_columns_measures_and_verdict():
    text = render(explain(km.load("arm-4dof"), "jacobian", q=[0, 0, 0, 0]), "text")
    assert "z0 × (p − p0)" in text and "det(J Jᵀ)" in text
    assert "Verdict: singular" in text and "stretched out" in text
    text = render(explain(km.load("planar-3r"), "jacobian", q=np.radians([30, 30, 20])), "text")
    assert "J[vx,1] = −L1·s1 − L2·s12 − L3·s123" in text


def test_analytic_explanation_of_paper003_both_branches():
    robot = km.load("arm-5dof-geo")
    t = km.targets.approach([59.98, 21.83, 42.33], pitch=np.radians(45))
    text = render(explain(robot, "ik", target=t, method="analytic"), "text")
    for s in ["θ1 = atan2(y, x)", "X5 = √(x² + y²)", "X4 = X5 − l4·cos φ", "D = (X4² + Z4² − l2² − l3²)",
              "θ4 = φ − θ2 − θ3", "elbow up", "elbow down", "45.095°", "−44.224°", "44.128°", "16.297°", "−15.521°"]:
        assert s in text, s


def test_dynamics_passes_equal_rne():
    for robot in [km.load("puma560"), km.load("arm-5dof"), km.load("kuka-kr6-r900"), _prismatic_robots()[0]]:
        for q, qd, qdd in RNG.uniform(-1, 1, (3, 3, robot.n)):
            np.testing.assert_allclose(newton_euler_passes(robot, q, qd, qdd)["tau"],
                                       km.rne(robot, q, qd, qdd, friction=False), atol=1e-9)
    text = " ".join(render(explain(km.load("arm-5dof"), "dynamics", q=np.zeros(5)), "text").split())
    assert "Forward pass" in text and "Backward pass" in text and "gives the same torques" in text
    assert "2.5443" in text  # the horizontal arm held against gravity (km.rne's doctest)


# --- the renderers ----------------------------------------------------------------------------
class _Collect(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.refs, self.stack, self.errors = Counter(), [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags[tag] += 1
        self.refs += [v for k, v in attrs if k in ("src", "href", "data", "action", "poster") and v]
        if tag not in ("meta", "br", "img", "link", "hr", "input"):
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack.pop() != tag:
            self.errors.append(tag)


def _docs():
    robot, ik_doc = _paper000_ik()
    return [ik_doc, explain(km.load("arm-5dof"), "fk", q=np.radians([10, 20, 30, 40, 50])),
            explain(km.load("planar-3r"), "jacobian", q=np.radians([30, 30, 20])),
            explain(km.load("arm-5dof"), "dynamics", q=np.zeros(5))]


@pytest.fixture(scope="module")
def docs():
    return _docs()


@pytest.mark.parametrize("math", ["mathjax", "mathml"])
def test_html_parses_and_needs_no_network(docs, math):
    for doc in docs:
        page = render(doc, "html", math=math)
        p = _Collect()
        p.feed(page)
        p.close()
        assert not p.errors and not p.stack
        assert p.tags["html"] == p.tags["body"] == 1 and p.tags["h2"] == len(doc.sections) + bool(doc.notation)
        assert all(not re.match(r"(https?:)?//", r) for r in p.refs), p.refs
        markup = re.sub(r"<script>.*?</script>", "<script></script>", page, flags=re.S)  # embedded code
        assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//|@import|url\(\s*["']?(https?:)?//""", markup)
        assert not re.search(r"<script[^>]+src=", page)
        if math == "mathjax":
            assert "window.MathJax" in page and "'autoload'" in page and "MathJax.version" not in page[:0]
        else:
            assert "<math" in page and "<script" not in page


def test_latex_environments_balance(docs):
    for doc in docs:
        tex = render(doc, "tex")
        begins = Counter(re.findall(r"\\begin\{(\w+\*?)\}", tex))
        ends = Counter(re.findall(r"\\end\{(\w+\*?)\}", tex))
        assert begins == ends and begins["document"] == 1
        lines = tex.splitlines()
        assert lines.count(r"\[") == lines.count(r"\]") > 0
        prose = re.sub(r"\\begin\{verbatim\}.*?\\end\{verbatim\}", "", tex, flags=re.S)
        assert prose.count("$") % 2 == 0
        assert all(ord(ch) < 128 for ch in prose), {ch for ch in prose if ord(ch) >= 128}


def test_markdown_and_text(docs):
    for doc in docs:
        md = render(doc, "md")
        assert md.startswith("# ") and md.count("$$") % 2 == 0
        assert md.count("```") % 2 == 0
        text = render(doc, "text")
        assert text.startswith(doc.title) and "\\begin" not in text and "\\frac" not in text


# --- the command line -------------------------------------------------------------------------
def test_cli_explain_ik_html(tmp_path, capsys):
    out = tmp_path / "ik.html"
    assert main(["explain", "planar-3r", "ik", "--position", "-10", "35", "--q0", "30", "30", "20", "--deg",
                 "--format", "html", "--out", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert "Inverse kinematics of planar-3r" in page and "Iteration 5" in page and "Iteration 6" not in page
    assert "wrote" in capsys.readouterr().out


def test_cli_explain_formats_and_errors(tmp_path, capsys):
    assert main(["explain", "arm-5dof", "fk", "--q", "10", "20", "30", "40", "50", "--deg"]) == 0
    assert "p_z = d1 + a2·s2 + a3·s23 + d5·c234" in capsys.readouterr().out
    tex = tmp_path / "fk.tex"
    assert main(["explain", "planar-3r", "fk", "--out", str(tex)]) == 0
    assert tex.read_text(encoding="utf-8").startswith(r"\documentclass")
    assert main(["explain", "planar-3r", "ik"]) == 2
    assert "needs the target" in capsys.readouterr().err
    assert main(["explain", "planar-3r", "fk", "--position", "1", "2"]) == 2
    assert main(["explain", "planar-3r", "jacobian", "--q", "1", "2"]) == 2
    assert main(["explain", "arm-5dof-geo", "ik", "--position", "59.98", "21.83", "42.33", "--pitch", "45",
                 "--deg", "--method", "analytic", "--format", "md"]) == 0
    assert "elbow down" in capsys.readouterr().out
    assert main(["explain", "planar-3r", "fk", "--json"]) == 0
    assert '"title": "Forward kinematics of planar-3r"' in capsys.readouterr().out


@pytest.mark.parametrize("name", km.robot_names())
def test_fk_shows_the_product_of_exponentials_and_it_agrees_with_the_chain(name):
    """The FK page's PoE section (kinematics.reference, Modern Robotics §4.1): its screw table
    has a row per joint, and its product is the chain's pose (the page says so only when they
    agree within 1e-12 of the arm's size, and prints the position, never the rounding)."""
    robot = km.load(name)
    q = np.random.default_rng(7).uniform(-1, 1, robot.n)
    doc = explain(robot, "fk", q=q)
    poe = next(s for s in doc.sections if s.title == "The same pose as a product of exponentials")
    assert len(poe.steps[1].table.rows) == robot.n
    assert "agree to rounding" in poe.steps[2].text
    np.testing.assert_allclose(poe.steps[2].values[0].array, km.fk(robot, q)[:3, 3], rtol=0, atol=1e-9)
