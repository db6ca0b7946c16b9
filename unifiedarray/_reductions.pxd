# The compiled reductions (unifiedarray/_compiled.py): the array and buffer
# types, so that the fast paths' typed locals read their fields directly.
from unifiedarray._array cimport UnifiedArray
from unifiedarray._buffer cimport UnifiedBuffer
from unifiedarray._operators cimport run_direct  # its one fast path's call, a C call
