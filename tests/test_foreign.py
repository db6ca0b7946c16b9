"""Foreign data read through NumPy (``unifiedarray._foreign``): the library's
own conversions of lists, tuples and array-likes that hold UnifiedArrays
are reads, on every device: each array inside keeps its valid copies, has
no host alias made, and is counted as written by nobody."""

from __future__ import annotations

import numpy as np
import pytest

import unifiedarray as xp
from unifiedarray._foreign import READING, host_data

from .conftest import DEVICES


def _both_current(device: str) -> xp.UnifiedArray:
    x = xp.asarray(np.arange(4.0, dtype=np.float32), device=device)
    x.buffer.sync_to_host()  # a device array's host copy current too: an unseen write would go stale
    return x


#: Every entry point through which foreign data that holds UnifiedArrays
#: reaches NumPy inside the library: each must read them, never alias them.
ENTRY_POINTS = {
    "asarray of a list of arrays": lambda x, i: xp.asarray([x, x]),
    "asarray of a tuple with an array": lambda x, i: xp.asarray((x, x), dtype=xp.float32),
    "an index list of 0-d arrays": lambda x, i: x[[i, i]],
    "take with a list of 0-d arrays": lambda x, i: xp.take(x, [i, i]),
    "prefetch of an array batch": lambda x, i: list(xp.prefetch([x], device="cpu")),
    "a list operand beside an array": lambda x, i: x + xp.asarray([x[0], x[1], x[2], x[3]]),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_foreign_data_holding_arrays_is_read_and_marks_nothing(device, entry):
    x = _both_current(device)
    i = xp.asarray(1)
    valid, version = x.buffer.valid_devices, x.buffer.version
    ENTRY_POINTS[entry](x, i)
    assert x.buffer.valid_devices == valid and not x.buffer.host_aliased()
    assert x.buffer.version == version  # nothing counted as a write
    assert not i.buffer.host_aliased()


def test_host_data_reads_nested_arrays_and_restores_the_flag_after_an_error():
    x = xp.asarray([1.0, 2.0])
    assert host_data([[x], [x]]).tolist() == [[[1.0, 2.0]], [[1.0, 2.0]]]
    with pytest.raises(ValueError):
        host_data([x, [1.0]])  # ragged: NumPy's ValueError
    assert READING.active is False  # a user's np.asarray(x) afterwards is the alias again
    alias = np.asarray(x)
    assert alias.flags.writeable and x.buffer.host_aliased()
