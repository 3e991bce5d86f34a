"""A built (op, product) called through its real C ABI with ctypes: tensors, both aclnn phases, the
workspace, the stream, the run options and the emulator's counters."""

from __future__ import annotations

import ctypes
import json
import threading
from pathlib import Path
from typing import Any, cast

import numpy as np

from codegen.build import BuiltOp
from codegen.perf import call_timeline
from codegen.runner.acl_objects import AclObjects, TensorArg, declare_acl_objects
from codegen.runner.arguments import (
    call_attrs,
    format_ids,
    tensor_list_value,
)
from codegen.runner.dtypes import _computable, acl_dtype_id
from codegen.runner.errors import ACL_ERROR_FAILURE, AclnnError
from codegen.runner.memory import POISON_BYTE, _byte_bounds, check_call_size, check_out_array, device_memory
from codegen.spec.model import ACL_FORMATS, OpSpec, Product
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


def _stand_in(a: np.ndarray | None) -> np.ndarray | None:
    """``a``, or for an array of a dtype no op computes on (complex, object, ...) a zero-stride fp32 array of
    its shape: what output inference sees for it (phase 1 refuses the array itself)."""
    return a if a is None or _computable(a) else np.broadcast_to(np.float32(0), a.shape)


class OpCallable(AclObjects):
    """A built (op, product) callable with the op's aclnn parameters as keyword arguments.

    Call with the aclnn names: tensors as NumPy arrays (any strides; ``None`` passes a null pointer),
    attributes as Python scalars. The output is allocated unless given as ``out=<array>`` (then it is
    written in place, strided views included) and returned; a nullable output passed as ``None`` is not
    produced and comes back as None (any other output passed as None: the API answers 161001), and so is
    an output the call's output mask switches off (:meth:`OpSpec.masked_off`) when the caller does not pass
    it (the API gets a null pointer for it). Keyword-only
    controls: ``deterministic``
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
        declare_acl_objects(lib)
        lib.aclrtCtxSetSysParamOpt.restype = ctypes.c_int32
        lib.aclrtCtxSetSysParamOpt.argtypes = [ctypes.c_int32, ctypes.c_int64]
        lib.opgen_rt_set_core_order.restype = ctypes.c_int32
        lib.opgen_rt_set_core_order.argtypes = [ctypes.c_int32, ctypes.c_uint64]
        lib.opgen_rt_last_launch_stats.restype = ctypes.c_char_p
        lib.opgen_rt_live_executor_count.restype = ctypes.c_uint64
        lib.opgen_rt_live_executor_count.argtypes = []
        lib.opgen_rt_opdef_json.restype = ctypes.c_char_p
        lib.opgen_rt_opdef_json.argtypes = [ctypes.c_char_p]
        lib.opgen_rt_run_tiling_json.restype = ctypes.c_char_p
        lib.opgen_rt_run_tiling_json.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
        lib.opgen_rt_run_infershape_json.restype = ctypes.c_char_p
        lib.opgen_rt_run_infershape_json.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
        lib.opgen_rt_probe_launch_json.restype = ctypes.c_char_p
        lib.opgen_rt_probe_launch_json.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
        phase1 = getattr(lib, f"{self.spec.aclnn_name}GetWorkspaceSize")
        phase1.restype = ctypes.c_int32
        attr_types = {a.name: ATTR_TYPE_INFO[a.type].ctype for a in self.spec.attrs}
        # aclnn parameter order (the spec's signature key, or inputs, attrs, outputs); tensors are pointers
        argtypes: list[Any] = [attr_types.get(name, ctypes.c_void_p) for name in self.spec.aclnn_order]
        argtypes += [ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_void_p)]
        phase1.argtypes = argtypes
        self._phase1 = phase1
        phase2 = getattr(lib, self.spec.aclnn_name)
        phase2.restype = ctypes.c_int32
        phase2.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_void_p, ctypes.c_void_p]
        self._phase2 = phase2
        lib.aclDestroyAclOpExecutor.restype = ctypes.c_int32
        lib.aclDestroyAclOpExecutor.argtypes = [ctypes.c_void_p]
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
        tensors: dict[str, TensorArg],
        attrs: dict[str, Any],
        null_workspace_size: bool = False,
        null_executor: bool = False,
    ) -> tuple[int, int, ctypes.c_void_p]:
        """Runs phase 1; returns ``(status, workspaceSize, executor)`` without raising."""
        ws = ctypes.c_uint64(0)
        ex = ctypes.c_void_p(None)
        call: list[Any] = []
        made: list[tuple[str, ctypes.c_void_p]] = []  # (acl object, handle): destroyed after the call
        by_name = {a.name: a for a in self.spec.attrs}
        try:
            for name in self.spec.aclnn_order:  # the C parameter order
                a = by_name.get(name)
                if a is None:
                    call.append(tensors[name].handle)
                elif a.type == "scalar":
                    handle = self.make_scalar(attrs[a.name])
                    made.append(("Scalar", handle))
                    call.append(handle)
                elif a.is_array:
                    handle = self.make_array(a.type, attrs[a.name])
                    made.append((ATTR_TYPE_INFO[a.type].array.removeprefix("acl"), handle))
                    call.append(handle)
                else:
                    call.append(ATTR_TYPE_INFO[a.type].ctype(attrs[a.name]))
            call += [None if null_workspace_size else ctypes.byref(ws), None if null_executor else ctypes.byref(ex)]
            status = self._phase1(*call)
        finally:
            for kind, handle in made:
                if handle.value:
                    getattr(self.lib, f"aclDestroy{kind}")(handle)
        return int(status), int(ws.value), ex

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
        self.last_stats = {}  # never the counters of an earlier call, whatever fails below
        fmt_ids, attrs, lists, outs, passed = self._prepare(formats, params)
        with self._lock:  # the run options are the library's, shared with other threads' callables
            self.set_run_options(deterministic, core_order, seed)
            tensors: dict[str, TensorArg] = {}
            try:
                for name, arr in passed.items():
                    fmt = fmt_ids.get(name, ACL_FORMATS["ND"])
                    tensors[name] = self.make_tensor_list(arr, fmt) if name in lists else self.make_tensor(arr, fmt)
                refused = [
                    (n, arr) for n, arr in passed.items() if isinstance(arr, np.ndarray) and not tensors[n].handle.value
                ]
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
        self.require_synchronised(
            {
                **{n: o for n, o in outs.items() if n not in lists},
                **{f"{n}[{k}]": e for n in lists & set(outs) for k, e in enumerate(outs[n] or ())},
            }
        )
        # a nullable output passed as None was not produced: None in its place; a list output is a list
        results = tuple(
            (None if o is None else list(o))
            if n in lists
            else (o if isinstance(o, np.ndarray) or o is None else np.asarray(o))
            for n, o in outs.items()
        )
        return results[0] if len(results) == 1 else results

    def phase1_status(
        self, /, *, deterministic: bool = False, formats: dict[str, str] | None = None, **params: Any
    ) -> tuple[int, str]:
        """Runs phase 1 only, with the parameters :meth:`__call__` takes, and returns ``(status, the runtime's
        error message)`` without raising for a status: whether the API takes the call, decided from the
        tensors' shapes, dtypes and the attributes before any launch. The executor phase 1 made is destroyed
        with ``aclDestroyAclOpExecutor`` (acl_meta.h), nothing runs and no output is written.

        Raises:
            TypeError, ValueError: as :meth:`__call__`, for parameters it refuses before phase 1.
        """
        fmt_ids, attrs, lists, _, passed = self._prepare(formats, params)
        with self._lock:
            self.set_run_options(deterministic, "in_order", 0)
            tensors: dict[str, TensorArg] = {}
            try:
                for name, arr in passed.items():
                    fmt = fmt_ids.get(name, ACL_FORMATS["ND"])
                    tensors[name] = self.make_tensor_list(arr, fmt) if name in lists else self.make_tensor(arr, fmt)
                if any(isinstance(arr, np.ndarray) and not tensors[n].handle.value for n, arr in passed.items()):
                    return int(AclnnStatus.ACLNN_ERR_PARAM_INVALID), self.recent_error()
                status, _, executor = self.phase1(tensors, attrs)
                message = self.recent_error() if status != AclnnStatus.ACLNN_SUCCESS else ""
                if executor.value:
                    self.lib.aclDestroyAclOpExecutor(executor)
                return status, message
            finally:
                self._destroy(list(tensors.values()))

    def _prepare(self, formats: dict[str, str] | None, params: dict[str, Any]) -> tuple[Any, ...]:
        """The checked parameters of a call (see :meth:`__call__`): ``(format ids, attrs, list names, outputs
        by name, the arrays to pass by name)``, outputs allocated unless given."""
        spec = self.spec
        fmt_ids = format_ids(spec, formats)
        known = {t.name for t in [*spec.inputs, *spec.outputs]} | {a.name for a in spec.attrs}
        unknown = set(params) - known
        if unknown:
            raise TypeError(
                f"{spec.aclnn_name}: unknown parameter(s) {', '.join(sorted(unknown))}; "
                f"takes {', '.join(sorted(known))}"
            )
        attrs = call_attrs(spec, params)
        lists = {t.name for t in [*spec.inputs, *spec.outputs] if t.is_list}
        arrays: dict[str, Any] = {}
        for t in spec.inputs:
            if t.name not in params and not t.optional:
                raise TypeError(f"{spec.aclnn_name}: missing input '{t.name}'")
            value = params.get(t.name)
            if t.is_list:
                arrays[t.name] = tensor_list_value(spec, t, value)
                continue
            arrays[t.name] = (
                None if value is None else np.asarray(value) if not isinstance(value, np.ndarray) else value
            )
        out_names = spec.output_names
        check_call_size(spec, arrays, attrs, out_given=params.get(out_names[0]) is not None)
        outs: dict[str, Any] = {}
        for t in spec.outputs:
            if t.name in params:
                out = params[t.name]
                if t.is_list:
                    # a list of arrays written in place (an element None is a null aclTensor in the list)
                    out = tensor_list_value(spec, t, out)
                    for k, element in enumerate(out or ()):
                        if element is not None:
                            check_out_array(spec.aclnn_name, f"{t.name}[{k}]", element)
                elif out is not None:  # out=None passes a null aclTensor: the API answers 161001, as CANN's does
                    check_out_array(spec.aclnn_name, t.name, out)
                outs[t.name] = out
        if len(outs) < len(out_names):
            from codegen import registry

            # an input of a dtype no op computes on (complex, object, ...) is refused by phase 1 below; the
            # output is allocated as for an fp32 input of its shape
            stand_ins = {
                name: (tuple(_stand_in(e) for e in a) if isinstance(a, tuple) else _stand_in(a))
                for name, a in arrays.items()
            }
            # a tuple (a tensor list's arrays) reaches only a family that declares tensor_lists: the spec
            # loader refuses a list in any other
            inferred = registry.family(spec.family).infer_outputs(
                spec, cast("dict[str, np.ndarray | None]", stand_ins), attrs
            )
            # an output the call's mask switches off and the caller did not pass: not allocated, a null pointer
            off = spec.masked_off(attrs)
            outs = {n: outs[n] if n in outs else None if n in off else inferred[n] for n in out_names}
            for n in lists & set(outs):  # a family gives an allocated list output as a list of arrays
                outs[n] = None if outs[n] is None else tuple(outs[n])
        arrays.update(outs)
        passed = self._refuse_unrepresentable(arrays)
        return fmt_ids, attrs, lists, outs, passed

    def _refuse_unrepresentable(self, arrays: dict[str, Any]) -> dict[str, Any]:
        """The tensors to pass for ``arrays`` (the call's arrays by aclnn name, None for a null pointer; a
        tensor list's value is a tuple of arrays).

        An array whose dtype no aclDataType represents (:func:`acl_dtype_id`: object, strings, ...) cannot
        become an aclTensor; the call answers as the API answers a dtype the tensor does not accept: 161002,
        after the null checks CANN makes first: when a required tensor (or list) is null, such an array passes
        as a stand-in of its shape and phase 1 returns 161001 for the null one. An element of a list is named
        ``name[k]``.

        Raises:
            AclnnError: 161002 (phase 1), naming the tensor, its NumPy dtype and the dtypes it accepts on
                the product, when a tensor has such a dtype and no required tensor is null.
        """

        def unrepresentable(a: Any) -> bool:
            return isinstance(a, np.ndarray) and acl_dtype_id(a) is None

        flat: dict[str, Any] = {}
        for name, a in arrays.items():
            if isinstance(a, tuple):
                flat.update({f"{name}[{k}]": e for k, e in enumerate(a)})
            else:
                flat[name] = a
        bad = [name for name, a in flat.items() if unrepresentable(a)]
        if not bad:
            return arrays
        optional = {t.name for t in self.spec.inputs if t.optional}
        if any(a is None and name not in optional for name, a in arrays.items()):
            # phase 1 answers the null (161001) before it reads a dtype: a zero-stride UINT8 stand-in of the
            # array's shape takes its place, never read

            def stand_in(a: Any) -> Any:
                return np.broadcast_to(np.uint8(0), a.shape) if unrepresentable(a) else a

            return {
                name: tuple(stand_in(e) for e in a) if isinstance(a, tuple) else stand_in(a)
                for name, a in arrays.items()
            }
        tensor = next(t for t in [*self.spec.inputs, *self.spec.outputs] if t.name == bad[0].split("[")[0])
        accepted = ", ".join(f"DT_{d.name}" for d in tensor.dtypes_for(self.product))
        dtype = flat[bad[0]].dtype
        # device memory is little-endian: a byte-swapped array of a represented type needs converting first
        swapped = not dtype.isnative and dtype.newbyteorder("=") != dtype
        hint = f" (convert it to native byte order first: .astype('{dtype.newbyteorder('=').str}'))" if swapped else ""
        raise AclnnError(
            AclnnStatus.ACLNN_ERR_PARAM_INVALID,
            f"{bad[0]} has NumPy dtype {dtype.str if swapped else dtype}, which no aclDataType represents (no "
            f"aclTensor can be made of it){hint}: it must be one of [{accepted}].",
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

    def probe_launch(self, request: dict[str, Any], cores: list[int]) -> dict[str, Any]:
        """Runs the tiling on a described shape (as :meth:`run_tiling`), then the kernel in the runtime's probe
        mode on ``cores`` only (``opgen_rt_probe_launch_json``): every tensor is reserved address space of its
        full size, every GM access is bounds-checked and recorded, none is performed. Returns the response:
        ``status``, ``block_dim``, ``tiling``, ``ok``, ``fault`` (the kernel fault text or None) and ``spans``:
        per core and GM region (``"input 0 (x)"``, ``"output 0 (y)"``, ``"workspace"``) the byte offsets
        ``[lo, hi)`` it read (``read``) and wrote (``write``), None for neither."""
        body = json.dumps({**request, "cores": cores}).encode()
        text = self.lib.opgen_rt_probe_launch_json(self.spec.op_type.encode(), body)
        return json.loads(text.decode()) if text else {}

    def run_tiling(self, request: dict[str, Any]) -> dict[str, Any]:
        """Runs the generated tiling function on a described shape (``opgen_rt_run_tiling_json``)."""
        text = self.lib.opgen_rt_run_tiling_json(self.spec.op_type.encode(), json.dumps(request).encode())
        return json.loads(text.decode()) if text else {}
