# The compiled results (unifiedarray/_compiled.py): the array type, so that
# adopt writes its fields directly.
from unifiedarray._array cimport UnifiedArray
