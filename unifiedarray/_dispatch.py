"""The one dispatch: every call on a :class:`~unifiedarray.UnifiedArray`
runs through the modules below, and this module assembles them.

Namespace functions, operators, methods, ``__getitem__``/``__setitem__``,
in-place operators and NumPy-protocol calls all end in these modules,
which keep the promises, each in one place:

1. **placement** (:mod:`unifiedarray._placement`): where the call runs
   (the device of its arrays; mixed devices by
   :func:`unifiedarray._policy.choose_device`; no arrays: the default
   device);
2. **current data** (:mod:`unifiedarray._access`): each array's copy on
   that device, synced first if it is stale (a counted move), after any
   non-blocking move still in flight;
3. **context**: the device's compute context (the array's CUDA GPU), in
   the call path (:mod:`unifiedarray._calls`);
4. **compute**: the backend's Array API function (one cache of resolved
   functions, :mod:`unifiedarray._resolve`); a function the backend lacks
   runs on the host, counted;
5. **errors** (:mod:`unifiedarray._errors`): a backend's exception becomes
   the class the host raises, at the call;
6. **results** (:mod:`unifiedarray._results`): wrapped as new arrays that
   never share memory with another buffer;
7. **writes** (:mod:`unifiedarray._writes`): through the buffer, so the
   written copy becomes the only valid one.

The entry points: :mod:`unifiedarray._calls` (namespace functions),
:mod:`unifiedarray._operators` (operators, elementwise functions, in-place
operators), :mod:`unifiedarray._reductions`,
:mod:`unifiedarray._subscripts` (``x[key]``, ``x[key] = v``),
:mod:`unifiedarray._view_ops` (reshape, permutation, ``to_device``),
:mod:`unifiedarray._intake` (foreign data and scalars), and the protocols
(:mod:`unifiedarray._interop`, :mod:`unifiedarray._exports`,
:mod:`unifiedarray._pickling`, :mod:`unifiedarray._dask`).

A fast path is allowed only in the dispatch, and each one has a property
test that it gives what the general path gives
(``tests/test_fast_paths.py``).

:data:`OPERATIONS` is the table through which the class's dunders and
methods reach these modules: the class sits below them (they work on it),
so it imports none of them; this module installs the table into it once,
at import (:func:`unifiedarray._array.install`).

Example
-------
>>> import unifiedarray as xp
>>> from unifiedarray import _array
>>> _array._ops is OPERATIONS
True
"""

from __future__ import annotations

from . import _access, _array, _calls, _dask, _exports, _interop, _namespace, _operators, _subscripts, _view_ops

__all__ = ["OPERATIONS"]

OPERATIONS = _array.Operations(
    call=_calls.call,
    unary=_operators.unary,
    operate=_operators.operate,
    inplace=_operators.inplace,
    getitem=_subscripts.getitem,
    setitem=_subscripts.setitem,
    native_on=_access.native_on,
    readonly_host=_access.readonly_host,
    linked_view=_view_ops.linked_view,
    reshaped=_view_ops.reshaped,
    to_device=_view_ops.to_device,
    namespace=_namespace.namespace,
    astype=_namespace.astype,
    copy_of=_namespace.copy_of,
    imag=_namespace.imag,
    array=_exports.array,
    array_ufunc=_interop.array_ufunc,
    array_function=_interop.array_function,
    dlpack=_exports.dlpack,
    dlpack_device=_exports.dlpack_device,
    cuda_array_interface=_exports.cuda_array_interface,
    cupy_get_ndarray=_exports.cupy_get_ndarray,
    mlx_array=_exports.mlx_array,
    reduce_ex=_dask.reduce_ex,
    dask_token=_dask.token,
)
_array.install(OPERATIONS)
