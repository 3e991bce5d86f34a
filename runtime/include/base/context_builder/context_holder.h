// ascend-opgen host emulation of CANN's base/context_builder/context_holder.h (hicann/metadef
// inc/external/base/context_builder/context_holder.h): what the context builders return, owning the built
// context. GetContext() is nullptr when the build failed.
#ifndef OPGEN_BASE_CONTEXT_BUILDER_CONTEXT_HOLDER_H
#define OPGEN_BASE_CONTEXT_BUILDER_CONTEXT_HOLDER_H

#include <memory>
#include <vector>

namespace gert {
class ContextHolderImpl;

class ContextHolderVoid {
 public:
  ContextHolderVoid();
  ~ContextHolderVoid();
  ContextHolderVoid(ContextHolderVoid &&other) noexcept;
  ContextHolderVoid &operator=(ContextHolderVoid &&other) noexcept;
  void *GetContext() const;

 private:
  friend class ContextHolderBuilder;
  std::unique_ptr<ContextHolderImpl> ctx_holder_impl_;
};

template <typename ContextTypeT>
class ContextHolder {
 public:
  ContextHolder() = default;
  explicit ContextHolder(ContextHolderVoid &&holder_void) : holder_void_(std::move(holder_void)) {}
  ContextTypeT *GetContext() {
    return static_cast<ContextTypeT *>(holder_void_.GetContext());
  }

 private:
  ContextHolderVoid holder_void_;
};
}  // namespace gert

#endif  // OPGEN_BASE_CONTEXT_BUILDER_CONTEXT_HOLDER_H
