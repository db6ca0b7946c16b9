# The compiled operators (unifiedarray/_compiled.py): the array and buffer
# types, so that the fast paths' typed locals read their fields directly.
from unifiedarray._array cimport UnifiedArray
from unifiedarray._buffer cimport UnifiedBuffer

# A C call from the fast paths (here and in _reductions): a call frame is a
# tenth of a small call.
cpdef object run_direct(object dev, str name, object first, object second, object shape, object a, object b=*)
from unifiedarray._results cimport lone_on_host, new_result  # every result, C calls
