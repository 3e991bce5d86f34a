// ascend-opgen host emulation of CANN's exe_graph/runtime/kernel_context.h (hicann/metadef
// inc/external/exe_graph/runtime/kernel_context.h): only gert::Chain's Deleter, the type of the tiling-data
// deleter OpTilingContextBuilder::TilingData takes.
#ifndef OPGEN_EXE_GRAPH_RUNTIME_KERNEL_CONTEXT_H
#define OPGEN_EXE_GRAPH_RUNTIME_KERNEL_CONTEXT_H

namespace gert {
class Chain {
 public:
  using Deleter = void (*)(void *);
};
}  // namespace gert

#endif  // OPGEN_EXE_GRAPH_RUNTIME_KERNEL_CONTEXT_H
