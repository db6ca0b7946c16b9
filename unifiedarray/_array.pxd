# The compiled array (unifiedarray/_compiled.py): its fields as C struct
# members, the same names as _array.py's __slots__ (keep the two in step).
cdef class UnifiedArray:
    cdef object __weakref__
    cdef public object buffer
    cdef public object chain
    cdef public object extent
    cdef public object host_view
