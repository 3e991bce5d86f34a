// ascend-opgen host emulation: the GM descriptor of a tensor list (see BuildListTensorDesc in
// opgen_rt/core.h). Hand-written runtime code; not generated.
#include <cstdint>
#include <string>
#include <vector>

#include "opgen_rt/core.h"

namespace opgen_rt {

std::vector<uint64_t> BuildListTensorDesc(const std::vector<ListElement> &elements, uint64_t &pointerTableOffset) {
  constexpr uint64_t kHighWord = uint64_t{1} << 32;  // RtsArg::AppendDevicePtrArg: the high 32 bits hold 1
  std::vector<uint64_t> words{0};
  for (const ListElement &e : elements) {
    words.push_back(kHighWord | e.dims.size());  // a 0-d or absent tensor: rank 0, no dimensions
    for (int64_t d : e.dims) {
      words.push_back(static_cast<uint64_t>(d));
    }
  }
  pointerTableOffset = words.size() * sizeof(uint64_t);
  words[0] = pointerTableOffset;
  for (const ListElement &e : elements) {
    words.push_back(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(e.data)));
  }
  return words;
}

void AddListArgument(LaunchRequest &request, const std::string &prefix, const std::string &name,
                     const std::vector<ListElement> &elements, bool writable, std::vector<uint64_t> &desc) {
  uint64_t tableOffset = 0;
  desc = BuildListTensorDesc(elements, tableOffset);
  auto *base = reinterpret_cast<uint8_t *>(desc.data());
  request.args.push_back(base);
  GmRegion descriptor{prefix + " (" + name + ") list", base, desc.size() * sizeof(uint64_t), false};
  descriptor.pointerTableOffset = tableOffset;
  request.regions.push_back(descriptor);
  for (size_t i = 0; i < elements.size(); ++i) {
    const ListElement &e = elements[i];
    if (e.data != nullptr && e.bytes > 0) {
      request.regions.push_back(GmRegion{prefix + "[" + std::to_string(i) + "] (" + name + ")",
                                         static_cast<uint8_t *>(const_cast<void *>(e.data)), e.bytes, writable});
    }
  }
}

}  // namespace opgen_rt
