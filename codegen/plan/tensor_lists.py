"""The split of a tensor list's elements over cores: the offset table a list op's tiling hands its kernel.

A tensor-list API of ops-nn runs one formula over every tensor of a list in one launch. Its common tiling data
(hicann/ops-nn, the list ops' utilities folder: ``op_host/*_tiling_def.h``, the ``*CommonTilingData`` struct)
gives the kernel each tensor's element count (``tensorDataCountList``, at most ``MAX_TENSOR_CONT`` = 256 tensors) and,
per core (at most ``MAX_CORE_CONT`` = 50; 80 on Ascend 950), the tensor and element where its share starts
and ends (``tensorStartList``/``tensorStartOffsetList``, ``tensorEndList``/``tensorEndOffsetList``), the
tensors read as one stream of elements: a core may take the tail of one tensor and the head of the next.
The kernel reads each tensor's address from the list's descriptor (``AscendC::ListTensorDesc``).

:func:`split_list` plans that table. Unlike ops-nn's ``AssignDataToEachCore``, which counts whole 32-byte
blocks of the concatenated stream (so a cut may fall inside a block of one tensor), it counts each tensor's
own blocks (``ceil(count / block_elements)``; an empty tensor has none, a 0-d tensor one) and cuts only at a
tensor's block boundaries: no two cores write bytes of one 32-byte block, so the split needs no byte-exact
DataCopyPad at a cut (Ascend910 and Ascend310P lack it), and a core's copies start block-aligned in every
tensor it touches. A partial block costs one DMA as a whole one does, so cores get equal block counts (they
differ by at most one block).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate

#: Tensors one launch's tiling holds (ops-nn's list tiling header, ``MAX_TENSOR_CONT``).
MAX_LIST_TENSORS = 256


@dataclass(frozen=True)
class CoreShare:
    """One core's share of a list: the elements from ``start_offset`` of tensor ``start_tensor`` up to, not
    including, ``end_offset`` of tensor ``end_tensor`` (tensors between them whole), in list order.

    Attributes:
        start_tensor: index of the first tensor the core reads.
        start_offset: the element of ``start_tensor`` it starts at (a multiple of the block's elements).
        end_tensor: index of the last tensor it reads (``>= start_tensor``).
        end_offset: one past its last element in ``end_tensor`` (a multiple of the block's elements, or that
            tensor's count).
        elements: elements it computes.
        blocks: 32-byte blocks it copies in per input (partial blocks counted whole).
    """

    start_tensor: int
    start_offset: int
    end_tensor: int
    end_offset: int
    elements: int
    blocks: int


@dataclass(frozen=True)
class ListSplit:
    """The offset table of a list: each tensor's element count and each core's share.

    Attributes:
        counts: element count per tensor, in list order (0 for an empty tensor, 1 for a 0-d one).
        block_elements: elements per 32-byte block of the list's dtype.
        cores: one share per launched core (the launch's blockDim is their number; none when the list holds
            no element: the call launches no kernel).
    """

    counts: tuple[int, ...]
    block_elements: int
    cores: tuple[CoreShare, ...]

    @property
    def block_dim(self) -> int:
        """Cores the launch runs on (0: no launch)."""
        return len(self.cores)

    def balance(self) -> float:
        """Largest core's blocks over the mean core's (1.0 is perfect; 1.0 for a launch of no core)."""
        if not self.cores:
            return 1.0
        blocks = [c.blocks for c in self.cores]
        return max(blocks) * len(blocks) / sum(blocks)


def split_list(counts: tuple[int, ...] | list[int], block_elements: int, core_count: int) -> ListSplit:
    """Splits the tensors of ``counts`` (element counts, list order) over at most ``core_count`` cores in
    whole blocks of ``block_elements`` elements of each tensor (see the module docstring): with ``B`` blocks
    in all, ``min(core_count, B)`` cores, core ``c`` taking blocks ``[c * B // k, (c + 1) * B // k)`` of the
    list's blocks in order.

    Raises:
        ValueError: a negative count, ``block_elements`` or ``core_count`` below 1, or more than
            :data:`MAX_LIST_TENSORS` tensors (one launch's tiling holds no more).
    """
    counts = tuple(int(n) for n in counts)
    if block_elements < 1 or core_count < 1:
        raise ValueError(f"block_elements and core_count must be >= 1, got {block_elements} and {core_count}")
    if any(n < 0 for n in counts):
        raise ValueError(f"element counts must be >= 0, got {list(counts)}")
    if len(counts) > MAX_LIST_TENSORS:
        raise ValueError(f"{len(counts)} tensors: one launch's tiling holds at most {MAX_LIST_TENSORS}")
    blocks = [-(-n // block_elements) for n in counts]
    ends = list(accumulate(blocks))  # ends[i]: blocks of tensors 0..i
    total = ends[-1] if ends else 0
    k = min(core_count, total)
    shares = []
    for c in range(k):
        lo, hi = c * total // k, (c + 1) * total // k
        first = bisect_right(ends, lo)  # the tensor holding block lo (empty tensors have no block: skipped)
        last = bisect_right(ends, hi - 1)  # the tensor holding block hi - 1
        start_offset = (lo - (ends[first] - blocks[first])) * block_elements
        end_offset = min(counts[last], (hi - (ends[last] - blocks[last])) * block_elements)
        if first == last:
            elements = end_offset - start_offset
        else:
            elements = counts[first] - start_offset + sum(counts[first + 1 : last]) + end_offset
        shares.append(CoreShare(first, start_offset, last, end_offset, elements, hi - lo))
    return ListSplit(counts, block_elements, tuple(shares))
