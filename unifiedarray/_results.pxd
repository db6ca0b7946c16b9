# The compiled results (unifiedarray/_compiled.py): the array type, so that
# adopt writes its fields directly.
from unifiedarray._array cimport UnifiedArray

# A C call from the compiled fast paths: every small host result is made here.
cpdef UnifiedArray lone_on_host(object native)
