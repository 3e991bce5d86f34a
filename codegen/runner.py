"""Calling a built op through its real C ABI with ctypes: NumPy arrays in, the output array back.

:func:`compile_op` builds (or fetches from cache) the shared library of an (op, product) and returns an
:class:`OpCallable`. Calling it runs both aclnn phases exactly as a C caller would: ``aclCreateTensor`` for
every array (non-contiguous views keep their strides and offset, in elements), phase 1
(``aclnnXxxGetWorkspaceSize``), a workspace of the returned size, phase 2 (``aclnnXxx``). A non-zero
``aclnnStatus`` raises :class:`AclnnError` with the status and ``aclGetRecentErrMsg()``.
"""

from __future__ import annotations

import ctypes
import json
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np

from codegen.build import BuiltOp, build_op
from codegen.perf import call_timeline
from codegen.spec.model import ACL_FORMATS, PRIVATE_ACL_FORMATS, SCALAR_ACL_IDS, AttrSpec, DType, OpSpec, Product
from codegen.specs import resolve_op
from codegen.types import ATTR_TYPE_INFO, AclnnStatus

#: Core scheduling modes of the emulator (opgen_rt::CoreOrder).
CORE_ORDERS = {"in_order": 0, "reversed": 1, "shuffle": 2, "concurrent": 3}

#: one lock per loaded library file (resolved path): the run options a call sets (``ACL_OPT_DETERMINISTIC``,
#: the core order and seed) are process-wide state of that library, which every callable loading the same
#: file shares (dlopen returns one handle), so a call holds its library's lock from setting them until its
#: counters are read; a call on another library runs concurrently
_LIBRARY_LOCKS: dict[str, threading.Lock] = {}
_LIBRARY_LOCKS_GUARD = threading.Lock()


def _library_lock(library: Path) -> threading.Lock:
    """The lock of the library file ``library`` (created on first use; see :data:`_LIBRARY_LOCKS`)."""
    key = str(Path(library).resolve())
    with _LIBRARY_LOCKS_GUARD:
        return _LIBRARY_LOCKS.setdefault(key, threading.Lock())


_NUMPY_TO_DTYPE: dict[np.dtype[Any], DType] = {}


def dtype_of_array(array: np.ndarray) -> DType:
    """The aclDataType of a NumPy array's dtype (``ml_dtypes.bfloat16`` is BF16).

    Raises:
        TypeError: the dtype has no aclDataType.
    """
    if not _NUMPY_TO_DTYPE:
        for d in DType:
            _NUMPY_TO_DTYPE[np.dtype(ml_dtypes.bfloat16 if d is DType.BF16 else d.numpy_name)] = d
    try:
        return _NUMPY_TO_DTYPE[array.dtype]
    except KeyError:
        raise TypeError(f"NumPy dtype {array.dtype} has no aclDataType") from None


#: aclDataType values (``acl/acl_base.h``) of NumPy dtypes that CANN has an aclDataType for but no op of
#: this project computes on (so they are not :class:`codegen.spec.model.DType` members): a tensor of them is
#: created as such, and the op's dtype check answers 161002.
_OTHER_ACL_IDS: dict[np.dtype[Any], int] = {np.dtype(np.complex64): 16, np.dtype(np.complex128): 17}


def acl_dtype_id(array: np.ndarray) -> int | None:
    """The ``aclDataType`` value of a NumPy array's dtype: a :class:`DType`'s, ACL_COMPLEX64 (16) or
    ACL_COMPLEX128 (17) (runtime/include/acl/acl_base.h, as CANN's); None for a dtype no aclDataType
    represents (object, strings, datetimes, ``float128``, ...), of which no aclTensor can be made."""
    try:
        return dtype_of_array(array).acl_id
    except TypeError:
        return _OTHER_ACL_IDS.get(array.dtype)


def _computable(array: np.ndarray) -> bool:
    """Whether the array's dtype is a :class:`DType` (one an op may compute on)."""
    try:
        dtype_of_array(array)
    except TypeError:
        return False
    return True


def numpy_dtype(d: DType) -> np.dtype[Any]:
    """The NumPy dtype holding values of ``d``."""
    return np.dtype(ml_dtypes.bfloat16 if d is DType.BF16 else d.numpy_name)


#: acl's generic failure status (acl_base.h), which the emulated acl calls answer to a host access of a
#: buffer a launch not yet synchronised may touch.
ACL_ERROR_FAILURE = 500001


class AclnnError(Exception):
    """A non-zero ``aclnnStatus``: ``status`` (int, e.g. 161002) and ``message`` (aclGetRecentErrMsg)."""

    def __init__(self, status: int, message: str, phase: int) -> None:
        super().__init__(f"aclnn status {status} in phase {phase}: {message}")
        self.status = status
        self.message = message
        self.phase = phase


@dataclass
class _TensorArg:
    handle: ctypes.c_void_p
    keep: tuple[Any, ...]


def _byte_bounds(a: np.ndarray) -> tuple[int, int]:
    try:
        from numpy.lib.array_utils import byte_bounds
    except ImportError:  # numpy < 2
        byte_bounds = np.byte_bounds  # type: ignore[attr-defined]
    low, high = byte_bounds(a)
    return int(low), int(high)


#: The byte that fresh emulated device memory holds: 0xFF (NaN for floats, -1 for integers).
POISON_BYTE = 0xFF


def device_memory(size: int, dtype: Any = np.uint8, shape: tuple[int, ...] | None = None) -> np.ndarray:
    """An array standing for fresh device memory: every byte is ``POISON_BYTE``, never zeros.

    Real ``aclrtMalloc`` does not clear memory, so a kernel that relies on a zeroed workspace or output
    without filling it itself must give wrong values here too. ``size`` is in elements of ``dtype``
    (bytes for the default uint8); ``shape`` (optional) reshapes the result and must hold ``size`` elements.
    """
    a = np.empty(size, dtype=dtype)
    a.view(np.uint8).fill(POISON_BYTE)
    return a if shape is None else a.reshape(shape)


def check_out_array(op: str, name: str, out: Any) -> None:
    """Rejects an ``out=`` array the kernel could not write in place, before anything runs.

    Raises:
        TypeError: ``out`` is not a NumPy array (the result would be lost).
        ValueError: ``out`` is read-only, has a negative or not element-aligned stride (it would be copied
            and the copy written), or elements that share memory (a zero stride, as ``np.broadcast_to`` gives).
    """
    where = f"{op}: out= array '{name}'"
    if not isinstance(out, np.ndarray):
        raise TypeError(f"{where} must be a NumPy array written in place, got {type(out).__name__}")
    if out.size <= 1:
        dims: list[tuple[int, int]] = []
    else:
        dims = sorted((abs(st), n) for st, n in zip(out.strides, out.shape) if n > 1)
    if any(st == 0 for st, _ in dims):
        raise ValueError(
            f"{where} has a zero stride (shape {out.shape}, strides {out.strides} bytes): several of its "
            "elements are one memory location, as with np.broadcast_to; pass an array with one location per "
            f"element, e.g. np.empty({out.shape}, {out.dtype.name})"
        )
    if any(st < 0 or st % out.itemsize for st in out.strides):
        raise ValueError(
            f"{where} has strides {out.strides} bytes: negative or not a multiple of the element size "
            f"({out.itemsize}) cannot be passed to aclCreateTensor in place; pass a view with positive strides"
        )
    extent = out.itemsize
    for st, n in dims:
        if st < extent:
            raise ValueError(
                f"{where} has overlapping elements (shape {out.shape}, strides {out.strides} bytes); pass an "
                f"array with one memory location per element, e.g. np.empty({out.shape}, {out.dtype.name})"
            )
        extent = st * n
    if not out.flags.writeable:
        raise ValueError(f"{where} is read-only (flags.writeable is False); pass a writable array")


INT64_MAX = 2**63 - 1
#: Default of the memory cap of one Python API call (bytes); ``$OPGEN_MAX_CALL_BYTES`` overrides it.
DEFAULT_MAX_CALL_BYTES = 4 << 30


def max_call_bytes() -> int:
    """The memory cap of one call (bytes): ``$OPGEN_MAX_CALL_BYTES`` when set to a positive integer, else
    :data:`DEFAULT_MAX_CALL_BYTES` (4 GiB).

    Raises:
        ValueError: ``OPGEN_MAX_CALL_BYTES`` is set but not a positive integer.
    """
    text = os.environ.get("OPGEN_MAX_CALL_BYTES")
    if text is None:
        return DEFAULT_MAX_CALL_BYTES
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise ValueError(f"OPGEN_MAX_CALL_BYTES must be a positive number of bytes, got {text!r}")
    return value


def _gib(nbytes: int) -> str:
    return f"{nbytes / 2**30:.3g} GiB"


def _numel(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape:
        n *= int(d)
    return n


def check_call_size(spec: OpSpec, arrays: dict[str, np.ndarray | None], attrs: dict[str, Any], out_given: bool) -> None:
    """Checks, before anything is allocated, that a call's tensors fit int64 and the memory cap.

    The output shape is computed from the spec's shape rule (``outputs[0].shape``) with Python integers;
    the call is refused when that shape has more than ``2**63 - 1`` elements, when an integer attr the rule
    reads is beyond int64, or when the memory the call needs exceeds :func:`max_call_bytes`. The estimate
    (bytes) counts every input as a contiguous copy (the L2 API makes one of a strided or zero-stride
    view), and, when the call allocates the output, the output plus one fp32 tensor of the output's shape
    per input (broadcast and cast copies).

    Raises:
        ValueError: naming the parameters, the shape and the limit. A shape rule that cannot be evaluated
            for other reasons (shapes that do not broadcast, a null input) is left to phase 1, which returns
            the aclnn status.
    """
    from codegen.spec.expr import ExprEvalError, as_shape, evaluate
    from codegen.spec.expr import names as expr_names
    from codegen.spec.model import absent_optional_shapes

    where = spec.aclnn_name
    present = {name: a for name, a in arrays.items() if a is not None}
    need = sum(int(a.size) * a.itemsize for a in present.values())
    rule = spec.outputs[0].shape
    if not out_given and rule is not None:
        read = sorted(expr_names(rule) & (set(present) | set(attrs)))
        for name in read:
            value = attrs.get(name)
            if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and int(value) > INT64_MAX:
                raise ValueError(
                    f"{where}: {name}={int(value)} is beyond int64 ({INT64_MAX}), so the result's shape "
                    f"{rule} cannot be represented; pass a smaller {name}"
                )
        try:
            shape = as_shape(evaluate(rule, {**absent_optional_shapes(spec.inputs, present), **present, **attrs}))
        except ExprEvalError:
            shape = None
        if shape is not None:
            numel = _numel(shape)
            given = ", ".join(f"{n}={list(present[n].shape)}" if n in present else f"{n}={attrs[n]}" for n in read)
            if numel > INT64_MAX:
                raise ValueError(
                    f"{where}: the result would have shape {list(shape)} = {numel} elements (from {given}), "
                    f"beyond int64 ({INT64_MAX}); no array was allocated"
                )
            item = max([4, *(a.itemsize for a in present.values())])
            need += numel * item * (1 + len(present))
    cap = max_call_bytes()
    if need > cap:
        shapes = ", ".join(f"{n} {list(a.shape)} {a.dtype}" for n, a in present.items())
        raise ValueError(
            f"{where}: the call would need about {_gib(need)} of memory ({shapes}"
            + ("" if out_given or rule is None else f"; result shape from {rule}")
            + f"), beyond the cap of {_gib(cap)} (OPGEN_MAX_CALL_BYTES); no array was allocated"
        )


class OpCallable:
    """A built (op, product) callable with the op's aclnn parameters as keyword arguments.

    Call with the aclnn names: tensors as NumPy arrays (any strides; ``None`` passes a null pointer),
    attributes as Python scalars. The output is allocated unless given as ``out=<array>`` (then it is
    written in place, strided views included) and returned. Keyword-only controls: ``deterministic``
    (sets ACL_OPT_DETERMINISTIC), ``core_order`` (``in_order``/``reversed``/``shuffle``/``concurrent``),
    ``seed`` (for ``shuffle``). ``last_stats`` holds the emulator counters of the last call (``{}`` when
    it failed before phase 2; a kernel fault's counters when phase 2 failed); on a product with a cost
    model its ``timeline`` entry holds the call's modelled time and roofline (:class:`codegen.perf.CallTimeline`
    as a dict; None when the counters carry no timeline). The workspace, and an output
    the call allocates, start as poisoned device memory (``device_memory``), as aclrtMalloc leaves them.
    """

    def __init__(self, built: BuiltOp) -> None:
        self.built = built
        self.spec: OpSpec = built.spec
        self.product: Product = built.product
        #: a poisoned workspace reused across calls (see :meth:`_workspace`); None until the first call
        self._spare_workspace: np.ndarray | None = None
        #: held by a call from setting the library's run options to reading its counters (:func:`_library_lock`)
        self._lock = _library_lock(built.library)
        self.lib = ctypes.CDLL(str(built.library), mode=ctypes.RTLD_LOCAL)
        lib = self.lib
        lib.aclCreateTensor.restype = ctypes.c_void_p
        lib.aclCreateTensor.argtypes = [
            ctypes.POINTER(ctypes.c_int64),
            ctypes.c_uint64,
            ctypes.c_int32,
            ctypes.POINTER(ctypes.c_int64),
            ctypes.c_int64,
            ctypes.c_int32,
            ctypes.POINTER(ctypes.c_int64),
            ctypes.c_uint64,
            ctypes.c_void_p,
        ]
        lib.aclDestroyTensor.restype = ctypes.c_int32
        lib.aclDestroyTensor.argtypes = [ctypes.c_void_p]
        lib.aclGetRecentErrMsg.restype = ctypes.c_char_p
        lib.aclrtCtxSetSysParamOpt.restype = ctypes.c_int32
        lib.aclrtCtxSetSysParamOpt.argtypes = [ctypes.c_int32, ctypes.c_int64]
        lib.opgen_rt_set_core_order.restype = ctypes.c_int32
        lib.opgen_rt_set_core_order.argtypes = [ctypes.c_int32, ctypes.c_uint64]
        lib.opgen_rt_last_launch_stats.restype = ctypes.c_char_p
        lib.opgen_rt_opdef_json.restype = ctypes.c_char_p
        lib.opgen_rt_opdef_json.argtypes = [ctypes.c_char_p]
        lib.opgen_rt_run_tiling_json.restype = ctypes.c_char_p
        lib.opgen_rt_run_tiling_json.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
        lib.opgen_rt_run_infershape_json.restype = ctypes.c_char_p
        lib.opgen_rt_run_infershape_json.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
        phase1 = getattr(lib, f"{self.spec.aclnn_name}GetWorkspaceSize")
        phase1.restype = ctypes.c_int32
        attr_types = {a.name: ATTR_TYPE_INFO[a.type].ctype for a in self.spec.attrs}
        # aclnn parameter order (the spec's signature key, or inputs, attrs, outputs); tensors are pointers
        argtypes: list[Any] = [attr_types.get(name, ctypes.c_void_p) for name in self.spec.aclnn_order]
        lib.aclCreateScalar.restype = ctypes.c_void_p
        lib.aclCreateScalar.argtypes = [ctypes.c_void_p, ctypes.c_int32]
        lib.aclDestroyScalar.restype = ctypes.c_int32
        lib.aclDestroyScalar.argtypes = [ctypes.c_void_p]
        argtypes += [ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_void_p)]
        phase1.argtypes = argtypes
        self._phase1 = phase1
        phase2 = getattr(lib, self.spec.aclnn_name)
        phase2.restype = ctypes.c_int32
        phase2.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_void_p, ctypes.c_void_p]
        self._phase2 = phase2
        lib.aclrtCreateStream.restype = ctypes.c_int32
        lib.aclrtCreateStream.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
        lib.aclrtSynchronizeStream.restype = ctypes.c_int32
        lib.aclrtSynchronizeStream.argtypes = [ctypes.c_void_p]
        lib.aclrtDestroyStream.restype = ctypes.c_int32
        lib.aclrtDestroyStream.argtypes = [ctypes.c_void_p]
        lib.opgen_rt_pending_host_access.restype = ctypes.c_char_p
        lib.opgen_rt_pending_host_access.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_int32]
        #: the stream phase 2 runs on: the emulator keeps the buffers of its launches pending until it is synchronised
        self.stream = ctypes.c_void_p()
        if lib.aclrtCreateStream(ctypes.byref(self.stream)) != 0:
            raise RuntimeError(f"aclrtCreateStream failed: {self.recent_error()}")
        self._destroy_stream = lib.aclrtDestroyStream
        self.last_stats: dict[str, Any] = {}

    # --- tensors -------------------------------------------------------------------------------------------

    def make_tensor(self, array: np.ndarray | None, fmt: int = 2) -> _TensorArg:
        """Wraps ``array`` in an aclTensor (strides and offset in elements, storage = the bytes it spans);
        ``None`` is a null pointer.

        Raises:
            TypeError: no aclDataType represents the array's dtype (:func:`acl_dtype_id`).
        """
        if array is None:
            return _TensorArg(ctypes.c_void_p(None), ())
        acl_id = acl_dtype_id(array)
        if acl_id is None:
            raise TypeError(f"NumPy dtype {array.dtype} has no aclDataType")
        item = array.itemsize
        strides = [s // item for s in array.strides]
        if any(s < 0 or s * item != bs for s, bs in zip(strides, array.strides)):
            array = np.ascontiguousarray(array)
            strides = [s // item for s in array.strides]
        if array.size == 0:
            base_ptr, offset, storage = array.ctypes.data, 0, 0
        else:
            low, high = _byte_bounds(array)
            base_ptr = low
            offset = (array.ctypes.data - low) // item
            storage = (high - low) // item
        dims = (ctypes.c_int64 * max(1, array.ndim))(*array.shape)
        st = (ctypes.c_int64 * max(1, array.ndim))(*strides)
        storage_dims = (ctypes.c_int64 * 1)(storage)
        handle = self.lib.aclCreateTensor(
            dims, array.ndim, acl_id, st, offset, fmt, storage_dims, 1, ctypes.c_void_p(base_ptr)
        )
        return _TensorArg(ctypes.c_void_p(handle), (array, dims, st, storage_dims))

    def _destroy(self, args: list[_TensorArg]) -> None:
        for a in args:
            if a.handle.value:
                self.lib.aclDestroyTensor(a.handle)

    def recent_error(self) -> str:
        """``aclGetRecentErrMsg()`` of the library ('' when none)."""
        msg = self.lib.aclGetRecentErrMsg()
        return msg.decode(errors="replace") if msg else ""

    # --- calling -------------------------------------------------------------------------------------------

    def set_run_options(self, deterministic: bool, core_order: str, seed: int) -> None:
        """Sets the deterministic option and the emulator's core scheduling for following calls.

        Raises:
            TypeError: ``deterministic`` is not a bool (``'yes'`` is not), ``seed`` is not an integer, or
                ``core_order`` is not a string; each message names the parameter.
            ValueError: unknown ``core_order``, or ``seed`` outside ``[0, 2**64 - 1]`` (a uint64 in C).
        """
        where = f"{self.spec.aclnn_name}:"
        if not isinstance(deterministic, (bool, np.bool_)):
            raise TypeError(
                f"{where} deterministic takes True or False, got {type(deterministic).__name__} {deterministic!r}"
            )
        if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
            raise TypeError(f"{where} seed takes an integer, got {type(seed).__name__} {seed!r}")
        if not 0 <= int(seed) <= 2**64 - 1:
            raise ValueError(f"{where} seed must be in [0, 2**64 - 1] (a uint64), got {int(seed)}")
        if not isinstance(core_order, str):
            raise TypeError(f"{where} core_order takes a string, got {type(core_order).__name__} {core_order!r}")
        if core_order not in CORE_ORDERS:
            raise ValueError(f"core_order must be one of {', '.join(CORE_ORDERS)}, got {core_order!r}")
        self.lib.aclrtCtxSetSysParamOpt(0, 1 if deterministic else 0)
        self.lib.opgen_rt_set_core_order(CORE_ORDERS[core_order], int(seed))

    def phase1(
        self,
        tensors: dict[str, _TensorArg],
        attrs: dict[str, Any],
        null_workspace_size: bool = False,
        null_executor: bool = False,
    ) -> tuple[int, int, ctypes.c_void_p]:
        """Runs phase 1; returns ``(status, workspaceSize, executor)`` without raising."""
        ws = ctypes.c_uint64(0)
        ex = ctypes.c_void_p(None)
        call: list[Any] = []
        scalars: list[ctypes.c_void_p] = []
        by_name = {a.name: a for a in self.spec.attrs}
        for name in self.spec.aclnn_order:  # the C parameter order
            a = by_name.get(name)
            if a is None:
                call.append(tensors[name].handle)
            elif a.type == "scalar":
                handle = self.make_scalar(attrs[a.name])
                scalars.append(handle)
                call.append(handle)
            else:
                call.append(ATTR_TYPE_INFO[a.type].ctype(attrs[a.name]))
        call += [None if null_workspace_size else ctypes.byref(ws), None if null_executor else ctypes.byref(ex)]
        try:
            status = self._phase1(*call)
        finally:
            for handle in scalars:
                if handle.value:
                    self.lib.aclDestroyScalar(handle)
        return int(status), int(ws.value), ex

    def make_scalar(self, value: ScalarArg | None) -> ctypes.c_void_p:
        """An aclScalar of ``value`` made by ``aclCreateScalar(void *value, aclDataType dataType)``; a null
        pointer for None. The caller destroys it with ``aclDestroyScalar``.

        Raises:
            ValueError: the runtime refused the dtype (``aclCreateScalar`` returned nullptr).
        """
        if value is None:
            return ctypes.c_void_p(None)
        # attr_value refused a finite value the dtype would turn into an infinity (_scalar_overflow)
        with np.errstate(over="ignore", invalid="ignore"):
            buf = np.asarray([value.value], dtype=_SCALAR_NUMPY[value.dtype])
        handle = self.lib.aclCreateScalar(ctypes.c_void_p(buf.ctypes.data), SCALAR_ACL_IDS[value.dtype])
        if not handle:
            raise ValueError(f"aclCreateScalar refused {value.dtype} {value.value!r}: {self.recent_error()}")
        return ctypes.c_void_p(handle)

    def __del__(self) -> None:
        stream = getattr(self, "stream", None)
        if stream is not None and stream.value:
            self._destroy_stream(stream)

    def launch(self, workspace: np.ndarray | None, size: int, executor: ctypes.c_void_p) -> int:
        """Runs phase 2 with ``workspace`` (a uint8 array or None) on :attr:`stream`, without synchronising it:
        until :meth:`synchronize`, the emulator refuses a host read of the outputs (see
        :meth:`require_synchronised`). Returns the status without raising."""
        ptr = (
            ctypes.c_void_p(workspace.ctypes.data)
            if workspace is not None and workspace.size
            else ctypes.c_void_p(None)
        )
        return int(self._phase2(ptr, size, executor, self.stream))

    def synchronize(self) -> int:
        """``aclrtSynchronizeStream`` of :attr:`stream`: waits for the work phase 2 queued on the stream's
        thread; its launches' buffers are the host's again. Returns the aclError: 0, or 507035
        (``ACL_ERROR_RT_VECTOR_CORE_EXCEPTION``) for a kernel fault, whose text :meth:`recent_error` gives."""
        return int(self.lib.aclrtSynchronizeStream(self.stream))

    def phase2(self, workspace: np.ndarray | None, size: int, executor: ctypes.c_void_p) -> int:
        """Runs phase 2 with ``workspace`` (a uint8 array or None) and synchronises the stream, as a caller
        must before reading the outputs; returns phase 2's status (else the sync's) without raising."""
        status = self.launch(workspace, size, executor)
        synced = self.synchronize()
        return status if status != 0 else synced

    def require_synchronised(self, arrays: dict[str, Any]) -> None:
        """Refuses a host read of any array in ``arrays`` (output name -> array or None) that a launch not yet
        synchronised may still write (the bytes each spans).

        Raises:
            AclnnError: status 500001 (ACL_ERROR_FAILURE, what the emulated acl calls answer), phase 2, with
                the runtime's message naming the output, the aclnn call and its stream.
        """
        for name, a in arrays.items():
            if not isinstance(a, np.ndarray) or a.size == 0:
                continue
            low, high = _byte_bounds(a)
            what = f"read of output {name} by the Python API".encode()
            message = self.lib.opgen_rt_pending_host_access(what, ctypes.c_void_p(low), high - low, 0)
            if message:
                raise AclnnError(ACL_ERROR_FAILURE, message.decode(), 2)

    def __call__(
        self,
        /,
        *,
        deterministic: bool = False,
        core_order: str = "in_order",
        seed: int = 0,
        formats: dict[str, str] | None = None,
        **params: Any,
    ) -> Any:
        """Runs the op. See the class docstring. Returns the output array, or for an op with several outputs
        the tuple of them in the spec's output order (each allocated unless given by its name). ``formats``
        gives tensors (by aclnn name) a storage format other than ND (``{"grad": "NCHW"}``; the names of
        ``codegen.spec.model.ACL_FORMATS`` and ``PRIVATE_ACL_FORMATS``), passed to ``aclCreateTensor``; the
        data stays in the array's layout.

        Raises:
            AclnnError: phase 1 or phase 2 returned a non-zero status.
            TypeError: a parameter is missing or unknown, an attribute has the wrong Python type (see
                :func:`attr_value`), ``out=`` is not an array, or ``formats`` is not a dict of str. An
                array of a dtype the op does not accept is AclnnError 161002, also one no aclDataType
                represents (object, strings; see :meth:`_refuse_unrepresentable`); complex arrays pass as
                ACL_COMPLEX64/ACL_COMPLEX128.
            ValueError: an attribute is outside the range of its C type, the ``out=`` array cannot be
                written in place (see :func:`check_out_array`), ``formats`` names an unknown tensor or format,
                or the result or the memory the call needs is beyond int64 or the memory cap (see
                :func:`check_call_size`; nothing is allocated), or ``aclCreateTensor`` refused an array (more
                axes than ``gert::Shape::kMaxDimNum``, 25; as in C, before the API is called).
        """
        spec = self.spec
        self.last_stats = {}  # never the counters of an earlier call, whatever fails below
        fmt_ids = format_ids(spec, formats)
        known = {t.name for t in [*spec.inputs, *spec.outputs]} | {a.name for a in spec.attrs}
        unknown = set(params) - known
        if unknown:
            raise TypeError(
                f"{spec.aclnn_name}: unknown parameter(s) {', '.join(sorted(unknown))}; "
                f"takes {', '.join(sorted(known))}"
            )
        attrs: dict[str, Any] = {}
        for a in spec.attrs:
            if a.name in params:
                attrs[a.name] = attr_value(spec, a, params[a.name])
            elif a.default is not None:
                attrs[a.name] = attr_value(spec, a, a.default) if a.type in ("scalar", "string") else a.default
            else:
                raise TypeError(f"{spec.aclnn_name}: missing attribute '{a.name}'")
        arrays: dict[str, np.ndarray | None] = {}
        for t in spec.inputs:
            if t.name not in params and not t.optional:
                raise TypeError(f"{spec.aclnn_name}: missing input '{t.name}'")
            value = params.get(t.name)
            arrays[t.name] = (
                None if value is None else np.asarray(value) if not isinstance(value, np.ndarray) else value
            )
        out_names = spec.output_names
        check_call_size(spec, arrays, attrs, out_given=params.get(out_names[0]) is not None)
        outs: dict[str, Any] = {}
        for out_name in out_names:
            if out_name in params:
                out = params[out_name]
                if out is not None:  # out=None passes a null aclTensor: the API answers 161001, as CANN's does
                    check_out_array(spec.aclnn_name, out_name, out)
                outs[out_name] = out
        if len(outs) < len(out_names):
            from codegen import registry

            # an input of a dtype no op computes on (complex, object, ...) is refused by phase 1 below; the
            # output is allocated as for an fp32 input of its shape
            stand_ins = {
                name: a if a is None or _computable(a) else np.broadcast_to(np.float32(0), a.shape)
                for name, a in arrays.items()
            }
            inferred = registry.family(spec.family).infer_outputs(spec, stand_ins, attrs)
            outs = {n: outs[n] if n in outs else inferred[n] for n in out_names}
        arrays.update(outs)
        passed = self._refuse_unrepresentable(arrays)
        with self._lock:  # the run options are the library's, shared with other threads' callables
            self.set_run_options(deterministic, core_order, seed)
            tensors = {
                name: self.make_tensor(arr, fmt_ids.get(name, ACL_FORMATS["ND"])) for name, arr in passed.items()
            }
            try:
                refused = [(n, arr) for n, arr in passed.items() if arr is not None and not tensors[n].handle.value]
                if refused:
                    # as in C, where aclCreateTensor returns nullptr before the API is called (e.g. more axes
                    # than gert::Shape holds); passing the null pointer on would answer "null argument"
                    first = (self.recent_error().splitlines() or ["no error message"])[0]
                    raise ValueError(
                        f"{self.spec.aclnn_name}: aclCreateTensor refused {refused[0][0]} "
                        f"({refused[0][1].ndim} axes): {first}"
                    )
                status, size, executor = self.phase1(tensors, attrs)
                if status != AclnnStatus.ACLNN_SUCCESS:
                    raise AclnnError(status, self.recent_error(), 1)
                workspace = self._workspace(size) if size else None
                status = self.launch(workspace, size, executor)
                synced = self.synchronize()
                status = status if status != 0 else synced
                stats = self.lib.opgen_rt_last_launch_stats()
                self.last_stats = json.loads(stats.decode()) if stats else {}
                if self.product.cost_model is not None and self.last_stats:
                    timeline = call_timeline(self.last_stats, self.product)
                    self.last_stats["timeline"] = timeline.as_dict() if timeline is not None else None
                if status != AclnnStatus.ACLNN_SUCCESS:
                    self._spare_workspace = None  # a fault may have left bytes anywhere: the next call starts afresh
                    raise AclnnError(status, self.recent_error(), 2)
            finally:
                self._destroy(list(tensors.values()))
        self.require_synchronised(outs)
        results = tuple(o if isinstance(o, np.ndarray) else np.asarray(o) for o in outs.values())
        return results[0] if len(results) == 1 else results

    def _refuse_unrepresentable(self, arrays: dict[str, Any]) -> dict[str, np.ndarray | None]:
        """The tensors to pass for ``arrays`` (the call's arrays by aclnn name, None for a null pointer).

        An array whose dtype no aclDataType represents (:func:`acl_dtype_id`: object, strings, ...) cannot
        become an aclTensor; the call answers as the API answers a dtype the tensor does not accept: 161002,
        after the null checks CANN makes first: when a required tensor is null, such an array passes as a
        stand-in of its shape and phase 1 returns 161001 for the null one.

        Raises:
            AclnnError: 161002 (phase 1), naming the tensor, its NumPy dtype and the dtypes it accepts on
                the product, when a tensor has such a dtype and no required tensor is null.
        """
        bad = [name for name, a in arrays.items() if isinstance(a, np.ndarray) and acl_dtype_id(a) is None]
        if not bad:
            return arrays
        optional = {t.name for t in self.spec.inputs if t.optional}
        if any(a is None and name not in optional for name, a in arrays.items()):
            # phase 1 answers the null (161001) before it reads a dtype: a zero-stride UINT8 stand-in of the
            # array's shape takes its place, never read
            return {name: np.broadcast_to(np.uint8(0), a.shape) if name in bad else a for name, a in arrays.items()}
        tensor = next(t for t in [*self.spec.inputs, *self.spec.outputs] if t.name == bad[0])
        accepted = ", ".join(f"DT_{d.name}" for d in tensor.dtypes_for(self.product))
        raise AclnnError(
            AclnnStatus.ACLNN_ERR_PARAM_INVALID,
            f"{bad[0]} has NumPy dtype {arrays[bad[0]].dtype}, which no aclDataType represents (no aclTensor can "
            f"be made of it): it must be one of [{accepted}].",
            1,
        )

    def _workspace(self, size: int) -> np.ndarray:
        """``size`` bytes of workspace in the state fresh device memory has: every byte ``POISON_BYTE``.

        The system workspace (the first ``min(sys_workspace_bytes, size)`` bytes; 16 MiB on NpuArch 2201 and
        3510) is read-only to a kernel: the emulator faults any write to it (runtime/src/device/core.cpp,
        rule ``system workspace``), and a faulted call drops the buffer. So one poisoned buffer is kept per
        callable and, for each call, only the bytes after the system part are poisoned again; the kernel sees
        exactly what :func:`device_memory` would give, without writing 16 MiB per launch.
        """
        spare = self._spare_workspace
        if spare is None or spare.size < size:
            spare = device_memory(size)
            self._spare_workspace = spare
            return spare[:size]
        sys_bytes = min(int(self.product.sys_workspace_bytes), size)
        spare[sys_bytes:size].fill(POISON_BYTE)
        return spare[:size]

    def opdef(self) -> dict[str, Any]:
        """The OpDef the library registered for the op's OpType (parsed ``opgen_rt_opdef_json``)."""
        text = self.lib.opgen_rt_opdef_json(self.spec.op_type.encode())
        return json.loads(text.decode()) if text else {}

    def run_infershape(self, request: dict[str, Any]) -> dict[str, Any]:
        """Runs the generated infer-shape and infer-dtype functions (``op_host/<kernel>_infershape.cpp``) on
        ``{"inputs": [{"shape": [...], "dtype": "FLOAT"} or None, ...], "attrs": {...}}`` (device input order,
        device attr names); returns ``{"status": 0, "outputs": [{"shape": [...], "dtype": "DT_FLOAT"}]}`` or
        ``{"status": 561001, "message": ...}`` (``opgen_rt_run_infershape_json``)."""
        text = self.lib.opgen_rt_run_infershape_json(self.spec.op_type.encode(), json.dumps(request).encode())
        return json.loads(text.decode()) if text else {}

    def run_tiling(self, request: dict[str, Any]) -> dict[str, Any]:
        """Runs the generated tiling function on a described shape (``opgen_rt_run_tiling_json``)."""
        text = self.lib.opgen_rt_run_tiling_json(self.spec.op_type.encode(), json.dumps(request).encode())
        return json.loads(text.decode()) if text else {}


def format_ids(spec: OpSpec, formats: dict[str, str] | None) -> dict[str, int]:
    """``aclFormat`` values of a call's ``formats`` option (tensor name -> format name).

    Raises:
        TypeError: ``formats`` is not a mapping, or a format is not a string.
        ValueError: a name that is not a tensor of ``spec`` or a format that is not in
            ``codegen.spec.model.ACL_FORMATS`` / ``PRIVATE_ACL_FORMATS``.
    """
    known = {**ACL_FORMATS, **PRIVATE_ACL_FORMATS}
    names = {t.name for t in (*spec.inputs, *spec.outputs)}
    out: dict[str, int] = {}
    if formats is not None and not isinstance(formats, Mapping):
        raise TypeError(
            f"{spec.aclnn_name}: formats takes a dict of tensor name -> format name (e.g. {{'self': 'NCHW'}}), "
            f"got {type(formats).__name__} {formats!r}"
        )
    for name, fmt in (formats or {}).items():
        if not isinstance(fmt, str):
            raise TypeError(
                f"{spec.aclnn_name}: the format of '{name}' must be a format name (a str), "
                f"got {type(fmt).__name__} {fmt!r}"
            )
        if name not in names:
            raise ValueError(f"{spec.aclnn_name}: formats names '{name}', which is not a tensor of the op")
        if fmt not in known:
            raise ValueError(f"{spec.aclnn_name}: unknown format '{fmt}' for '{name}'; known: {', '.join(known)}")
        out[name] = known[fmt]
    return out


@dataclass(frozen=True)
class ScalarArg:
    """The value of a ``scalar`` attribute: ``value`` passed as an aclScalar of ``dtype`` (a name of
    ``SCALAR_ACL_IDS``, e.g. ``FLOAT``). A Python number given for a scalar attribute becomes
    ``ScalarArg(number, attr.scalar_dtypes[0])``; pass a ScalarArg to choose another dtype."""

    value: float | int | bool
    dtype: str


#: NumPy storage of each aclScalar dtype (the type table's NumPy names; BF16 through ml_dtypes).
_SCALAR_NUMPY: dict[str, Any] = {d.name: numpy_dtype(d).type for d in DType}

#: The range of each integer attr type (values outside would wrap silently when passed to C).
_FLOAT32_MAX = float(np.finfo(np.float32).max)


def attr_value(spec: OpSpec, attr: AttrSpec, value: Any) -> Any:
    """``value`` checked against ``attr``'s C type, as the Python value ctypes passes.

    Integer attrs (``int64``, ``uint64``) take Python or NumPy integers within the type's range, except the
    padding-row attr of a row-accumulating op (``paddingIdx``), a uint64 whose values negative as int64 mean
    "no padding row": it also takes PyTorch's ``-1`` (any negative int64), passed as the same bits
    (``-1`` -> ``2**64 - 1``); ``bool``
    attrs take ``True``/``False`` (or NumPy bools); ``float``/``double`` attrs take real numbers (``float``:
    within the finite float32 range, or inf/NaN).

    Raises:
        TypeError: a string, float or other non-integer for an integer attr; anything but a bool for a bool
            attr (``"True"`` is not a bool); a non-number for a float attr.
        ValueError: an integer outside ``[-2**63, 2**63 - 1]`` (int64) or ``[0, 2**64 - 1]`` (uint64), or a
            finite float beyond float32's range for a ``float`` attr.
    """
    where = f"{spec.aclnn_name}: attribute '{attr.name}' ({attr.type})"
    if attr.type == "scalar":
        if value is None or isinstance(value, ScalarArg):
            if isinstance(value, ScalarArg) and value.dtype not in _SCALAR_NUMPY:
                raise ValueError(f"{where}: unknown aclScalar dtype {value.dtype!r}")
            overflow = _scalar_overflow(value) if isinstance(value, ScalarArg) else ""
            if overflow:
                raise ValueError(f"{where}: {overflow}")
            return value  # None passes a null aclScalar (the API returns 161001)
        if isinstance(value, (bool, np.bool_)):
            return ScalarArg(bool(value), "BOOL" if "BOOL" in attr.scalar_dtypes else attr.scalar_dtypes[0])
        if not isinstance(value, (int, float, np.integer, np.floating)):
            raise TypeError(f"{where} takes a real number, got {type(value).__name__} {value!r}")
        try:
            arg = ScalarArg(float(value), attr.scalar_dtypes[0])
        except OverflowError:
            raise ValueError(
                f"{where} = {value!r} does not fit a double (an aclScalar holds at most a double)"
            ) from None
        overflow = _scalar_overflow(arg)
        if overflow:
            raise ValueError(f"{where}: {overflow}")
        return arg
    if attr.type == "string":
        if value is None:
            return None  # a null char * (the API returns 161001)
        if not isinstance(value, str):
            raise TypeError(f"{where} takes a str, got {type(value).__name__} {value!r}")
        if "\0" in value:
            raise ValueError(f"{where} = {value!r} holds a NUL character, which a C string (char *) cannot carry")
        try:
            return value.encode()  # any string: the API answers 161002 for one outside the values
        except UnicodeEncodeError as exc:  # a lone surrogate ("\udc80"): no UTF-8 char * holds it
            raise ValueError(
                f"{where} holds {value[exc.start : exc.end]!r} at index {exc.start}, which UTF-8 cannot encode "
                "(a lone surrogate); a C string (char *) cannot carry it"
            ) from None
    if attr.type == "bool":
        if isinstance(value, (bool, np.bool_)):
            return bool(value)
        raise TypeError(f"{where} takes True or False, got {type(value).__name__} {value!r}")
    int_range = ATTR_TYPE_INFO[attr.type].int_range
    if int_range is not None:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"{where} takes an integer, got {type(value).__name__} {value!r}")
        lo, hi = int_range
        if attr.type == "uint64" and attr.name == getattr(spec.compute, "padding", None) and -(2**63) <= value < 0:
            return int(value) + 2**64  # negative as int64: no padding row (PyTorch's padding_idx=-1)
        if not lo <= int(value) <= hi:
            raise ValueError(f"{where} must be in [{lo}, {hi}], got {int(value)}; it would wrap in C")
        return int(value)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{where} takes a real number, got {type(value).__name__} {value!r}")
    f = float(value)
    if attr.type == "float" and np.isfinite(f) and abs(f) > _FLOAT32_MAX:
        raise ValueError(f"{where} must be within float32's range (+-{_FLOAT32_MAX:.9g}), got {f!r}")
    return f


def _scalar_overflow(value: ScalarArg) -> str:
    """Why the finite float ``value.value`` cannot be an aclScalar of ``value.dtype`` (it would round to an
    infinity there: ``1e300`` as FLOAT), or ``''``."""
    if not isinstance(value.value, float) or not np.isfinite(value.value) or value.dtype not in _SCALAR_NUMPY:
        return ""
    kind = np.dtype(_SCALAR_NUMPY[value.dtype])
    if kind.kind != "f":
        return ""
    with np.errstate(over="ignore", invalid="ignore"):
        stored = np.asarray([value.value], dtype=kind)[0]
    if np.isfinite(stored):
        return ""
    return (
        f"{value.value!r} is beyond the range of an aclScalar of {value.dtype} (it would be {float(stored)}); "
        "pass ScalarArg(value, 'DOUBLE') to an attribute that takes a DOUBLE aclScalar"
    )


def compile_op(
    op: str,
    product: str,
    *,
    generated: str | Path | None = None,
    sanitize: bool = False,
    specs_dir: str | Path | None = None,
    products: str | Path | None = None,
) -> OpCallable:
    """Builds (op, product) and returns its callable.

    Args:
        op: snake name (``soft_margin_loss_backward``) or OpType (``SoftMarginLossBackward``).
        product: catalogue name, e.g. ``Ascend910B``.
        generated: the generated tree to build from (default ``generated/``).
        sanitize: build with ASan/UBSan (the process must preload the sanitizer runtime).
        specs_dir: another spec directory (default the project's ``specs/``).
        products: another product catalogue (default ``<specs_dir>/products.yaml``).

    Raises:
        KeyError: unknown op or product (message lists the known ones).
        ValueError: the op does not support ``product`` (message lists the products it supports).
        codegen.spec.errors.SpecErrors: a spec is invalid.
        codegen.build.BuildError: compiling failed.
    """
    from codegen.specs import load_project

    catalogue, specs = load_project(specs_dir, products)
    spec = resolve_op(op, specs)
    prod = catalogue.get(product)
    if prod.name not in spec.products:
        raise ValueError(
            f"{spec.aclnn_name} does not support {prod.name}; its products: {', '.join(spec.products)} "
            f"({Path(spec.path).parent.name}/{Path(spec.path).name})"
        )
    built = build_op(spec, prod, Path(generated) if generated else None, sanitize=sanitize)
    return OpCallable(built)
