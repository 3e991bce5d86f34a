"""Buffer allocation: a linear scan maps a built program's virtual registers onto the input buffers, fp32
temporaries, bit masks and the output buffer, reusing a buffer once its value is dead."""

from __future__ import annotations

from codegen.families.elementwise.compiler.fusion import AXPY, fuse_axpy
from codegen.families.elementwise.compiler.narrow import NARROW_SUFFIX, narrow_compares, narrow_selects
from codegen.families.elementwise.compiler.program import Instruction, Program
from codegen.families.elementwise.compiler.values import _Values


def _allocate(b: _Values, root: int, constants: dict[str, str], narrow: bool = True) -> Program:
    """Maps virtual registers onto input buffers, fp32 temporaries and the output buffer.

    A ``Duplicate`` of a host value is the same in every tile: it becomes a per-core constant
    (:attr:`Program.constants`), filled once before the first tile into its own fp32 buffer, never reused.
    ``constants`` maps each such scalar to its buffer (``const<k>``); it is shared by every program of one
    kernel, so one buffer holds one scalar in all of them. With ``narrow``, a 16-bit program whose result is a
    chain of selects among its inputs and exact literals selects the 16-bit elements themselves
    (:func:`.narrow.narrow_selects`): the chain writes the output buffer, its constants are held in the input
    dtype (:attr:`Program.narrow`) and no final ``Cast`` rounds the result. An input compared only with host
    values is compared in its own dtype where the hardware can (:func:`.narrow.narrow_compares`); its rounded
    host values are constants in the input dtype whose fill carries the ``RoundMode`` (``round_mode``). A
    ``Muls`` whose only reader adds it to a value that dies there becomes one ``Axpy`` into that value's buffer
    (:func:`.fusion.fuse_axpy`)."""
    chain = narrow_selects(b, root) if narrow else set()
    narrow_compares(b)
    final_cast = b.narrow_output and not chain
    to_out = fuse_axpy(b, root, final_cast, chain)
    last_use: dict[int, int] = {}
    for i, (_, _, srcs, *_rest) in enumerate(b.code):
        for s in srcs:
            last_use[s] = i
    buf: dict[int, str] = {reg: f"{name}Local" for reg, name in b.reg_source.items()}
    free_temps: list[str] = []
    free_masks: list[str] = []
    temps = 0
    masks = 0
    out: list[Instruction] = []
    fills: list[Instruction] = []
    # an input's own buffer may take a value at its last use where it holds fp32 (an input read in place)
    in_place = {f"{name}Local" for name in b.reg_source.values() if not b.is_cast(name)}
    narrow_names: list[str] = []
    for i, (op, dst, srcs, scalar, rm, mode, approx) in enumerate(b.code):
        dying = list(dict.fromkeys(s for s in srcs if last_use.get(s) == i))
        for s in dying:
            name = buf[s]
            if name.startswith("tmp"):
                free_temps.append(name)
            elif name.startswith("mask"):
                free_masks.append(name)
        if op == "Duplicate" and dst != root and scalar is not None:
            key = scalar + NARROW_SUFFIX + (rm or "") if dst in b.narrow_consts else scalar
            name = constants.setdefault(key, f"const{len(constants)}")
            buf[dst] = name
            fills.append(Instruction(op, name, (), scalar, rm))
            if dst in b.narrow_consts:
                narrow_names.append(name)
            continue
        if dst in chain or dst in to_out:
            target = "outLocal"
        elif op == AXPY:
            # in place: the addend's buffer (dying here: a temporary, or an fp32 input's tile) takes the result
            target = buf[srcs[0]]
            if target in free_temps:
                free_temps.remove(target)
        elif dst in b.mask_regs:
            # Mask buffers form their own pool; a dying mask is not reused by the mask written from it.
            if free_masks:
                free_masks.sort()
                target = free_masks.pop(0)
            else:
                target = f"mask{masks}"
                masks += 1
        elif dst == root and not final_cast:
            target = "outLocal"
        else:
            reusable = [buf[s] for s in dying if buf[s].startswith("tmp") or buf[s] in in_place]
            if reusable and op != "Cast":
                target = reusable[0]
                if target in free_temps:
                    free_temps.remove(target)
            elif free_temps:
                free_temps.sort()
                target = free_temps.pop(0)
            else:
                target = f"tmp{temps}"
                temps += 1
        buf[dst] = target
        read = srcs[1:] if op == AXPY else srcs  # Axpy's addend is its dst
        out.append(Instruction(op, target, tuple(buf[s] for s in read), scalar, rm, mode, approx, b.images.get(dst)))
    if final_cast:
        out.append(Instruction("Cast", "outLocal", (buf[root],), None, "CAST_RINT"))
    elif not out or out[-1].dst != "outLocal":
        # The formula is a bare input: copy it through a vector instruction so the output queue is written.
        out.append(Instruction("Muls", "outLocal", (buf[root],), "1.0f"))
    return Program(
        cast_inputs=b.cast_inputs,
        instructions=tuple(out),
        temps=temps,
        masks=masks,
        constants=tuple(fills),
        narrow=tuple(narrow_names),
    )
