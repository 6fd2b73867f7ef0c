"""Robots and IK results in Jupyter: `_repr_html_` tables, escaped."""

from __future__ import annotations

import numpy as np

import kinematica as km


def test_robots_and_ik_results_render_as_html_tables_in_notebooks():
    from html.parser import HTMLParser

    class Cells(HTMLParser):
        def __init__(self):
            super().__init__()
            self.cells, self.tags = [], []

        def handle_starttag(self, tag, attrs):
            self.tags.append(tag)

        def handle_data(self, data):
            if self.tags and self.tags[-1] in ("td", "th", "caption"):
                self.cells.append(data)

    def cells(html: str) -> list[str]:
        p = Cells()
        p.feed(html)
        return p.cells

    robot = km.load("puma560")
    got = cells(robot._repr_html_())
    assert "puma560: 6 joints RRRRRR, lengths in m" in got and robot.joint_names[0] in got
    assert f"{np.degrees(robot.limits[0, 1]):.2f}°" in got
    one = km.ik(robot, km.fk(robot, robot.q_home + 0.1))
    got = cells(one._repr_html_())
    assert any(c.startswith("IK (lm): solved — converged") for c in got)
    many = km.ik(robot, km.fk(robot, np.tile(robot.q_home, (3, 1))))
    assert "IK (lm): 3 of 3 solved" in cells(many._repr_html_())
    weird = km.from_dh([{"a": 1, "name": "<b>j&1</b>"}], name="<script>")
    assert "<script>" not in weird._repr_html_() and "&lt;script&gt;" in weird._repr_html_()
