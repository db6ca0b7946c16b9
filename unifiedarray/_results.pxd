# The compiled results (unifiedarray/_compiled.py): the array type, so that
# adopt writes its fields directly.
from unifiedarray._array cimport UnifiedArray

# C calls from the compiled fast paths: every result is made by new_result,
# every small host result through lone_on_host.
cpdef UnifiedArray new_result(object native, object device_dtype, object shape)
cpdef UnifiedArray lone_on_host(object native)
