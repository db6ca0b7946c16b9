# The compiled array (unifiedarray/_compiled.py): its fields as C struct
# members, the same names as _array.py's __slots__ (keep the two in step).
from unifiedarray._buffer cimport UnifiedBuffer


cdef class UnifiedArray:
    cdef object __weakref__
    cdef public UnifiedBuffer buffer_made  # typed: a compiled x.buffer_made.ready is two field reads
    cdef public object chain
    cdef public object extent
    cdef public object host_view
    cdef public object lone_copy
    cdef public object lone_device_dtype


# A C call from the compiled modules: a lone result's buffer, made on first use.
cpdef UnifiedBuffer _own_buffer(UnifiedArray arr)
