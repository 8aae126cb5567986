"""`transforms.quat_through_matrix` is `matrix_to_quat(quat_to_matrix(q) + 0.0)` bit for bit (every <inertial> of a
body goes through it), and refuses what those refuse."""

from __future__ import annotations

import random

import numpy as np
import pytest

from robodesc.core.transforms import matrix_to_quat, quat_through_matrix, quat_to_matrix

_SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1e-300, 1e300, 0.70710678, 1e-8]


def _quats(count: int) -> list[np.ndarray]:
    rng = random.Random(14)
    found = []
    for i in range(count):
        if i % 3 == 0:  # signed zeros, ties between diagonal entries, huge and tiny components
            found.append(np.array([rng.choice(_SPECIAL) for _ in range(4)]))
        elif i % 3 == 1:
            found.append(np.array([rng.gauss(0, 1) for _ in range(4)]))
        else:
            found.append(np.array([rng.choice([rng.gauss(0, 1), 0.0, -0.0, 1.0]) for _ in range(4)]))
    return found


def test_the_same_bits_as_the_matrix_round_trip() -> None:
    for quat in _quats(20000):
        try:
            expected = matrix_to_quat(quat_to_matrix(quat) + 0.0)
        except ValueError:
            with pytest.raises(ValueError):
                quat_through_matrix(quat)
            continue
        assert quat_through_matrix(quat).tobytes() == expected.tobytes(), quat


@pytest.mark.parametrize("quat", [[0.0, 0.0, 0.0, 0.0], [np.inf, 0.0, 0.0, 0.0], [np.nan, 1.0, 0.0, 0.0]])
def test_refuses_what_the_core_functions_refuse(quat: list[float]) -> None:
    with pytest.raises(ValueError):
        quat_to_matrix(np.array(quat))
    with pytest.raises(ValueError):
        quat_through_matrix(np.array(quat))
