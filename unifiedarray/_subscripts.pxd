# The compiled subscripts (unifiedarray/_compiled.py): the array and buffer
# types, so that a view's fields are written and read directly.
from unifiedarray._array cimport UnifiedArray
from unifiedarray._buffer cimport UnifiedBuffer
