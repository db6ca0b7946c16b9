# The compiled subscripts (unifiedarray/_compiled.py): the array type, so
# that a view's fields are written directly.
from unifiedarray._array cimport UnifiedArray
