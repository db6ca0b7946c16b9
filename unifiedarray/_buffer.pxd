# The compiled buffer (unifiedarray/_compiled.py): its fields as C struct
# members, the same names as _buffer.py's __slots__ (keep the two in step).
cdef class UnifiedBuffer:
    cdef object __weakref__
    cdef public object _after
    cdef public object _anchor
    cdef public object _copies_made
    cdef public object _copy_back
    cdef public object _leased
    cdef public object _lock_obj
    cdef public object _pending
    cdef public object _pinned
    cdef public object _pool_allocation
    cdef public object _released
    cdef public object _shape
    cdef public object _solo
    cdef public object _valid
    cdef public object _version
    cdef public object dtype
    cdef public object host_ready
    cdef public object placement
    cdef public object ready
    # The one write step (see _buffer.py): a C call from write(), fill() and copy_from().
    cpdef _written(self, object dev, str reason, bint overwrite, object step, bint copy_only=*)

# A C call from the compiled modules: every buffer a result gets is made here.
cpdef UnifiedBuffer adopt(object native, object device, object dtype, object shape=*)
