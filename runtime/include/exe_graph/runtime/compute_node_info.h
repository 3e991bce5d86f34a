// ascend-opgen host emulation of CANN's exe_graph/runtime/compute_node_info.h (hicann/metadef
// inc/external/exe_graph/runtime/compute_node_info.h): how the inputs and outputs of an OpDef (its IR
// prototype) are instantiated on a node. A REQUIRED input is one instance, an absent OPTIONAL one none, a
// DYNAMIC input (a tensor list) as many as the list has tensors; the instances of all inputs are numbered in
// order, which is the index GetInputShape / GetInputDesc / GetInputTensor take.
#ifndef OPGEN_EXE_GRAPH_RUNTIME_COMPUTE_NODE_INFO_H
#define OPGEN_EXE_GRAPH_RUNTIME_COMPUTE_NODE_INFO_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace opgen_rt {
class TilingContextBuilder;
}

namespace gert {

class AnchorInstanceInfo {
 public:
  AnchorInstanceInfo() = default;
  AnchorInstanceInfo(const uint32_t instance_start, const uint32_t instantiation_num)
      : instance_start_(instance_start), instantiation_num_(instantiation_num) {}

  // Instances of this IR input or output (a list's length; 0 for an absent optional one).
  size_t GetInstanceNum() const {
    return instantiation_num_;
  }
  // Index of its first instance among all the node's inputs (or outputs).
  size_t GetInstanceStart() const {
    return instance_start_;
  }
  void SetInstanceStart(const uint32_t instance_start) {
    instance_start_ = instance_start;
  }
  void SetInstantiationNum(const uint32_t instantiation_num) {
    instantiation_num_ = instantiation_num;
  }

 private:
  uint32_t instance_start_ = 0;
  uint32_t instantiation_num_ = 0;
};

class ComputeNodeInfo {
 public:
  // Inputs / outputs of the IR prototype (the OpDef).
  size_t GetIrInputsNum() const {
    return irInputs_.size();
  }
  size_t GetIrOutputsNum() const {
    return irOutputs_.size();
  }
  // Instantiated inputs / outputs of the node.
  size_t GetInputsNum() const {
    return inputsNum_;
  }
  size_t GetOutputsNum() const {
    return outputsNum_;
  }
  // The instances of IR input (output) `ir_index`; nullptr past the prototype's inputs (outputs).
  const AnchorInstanceInfo *GetInputInstanceInfo(const size_t ir_index) const {
    return ir_index < irInputs_.size() ? &irInputs_[ir_index] : nullptr;
  }
  const AnchorInstanceInfo *GetOutputInstanceInfo(const size_t ir_index) const {
    return ir_index < irOutputs_.size() ? &irOutputs_[ir_index] : nullptr;
  }

 private:
  friend class opgen_rt::TilingContextBuilder;
  std::vector<AnchorInstanceInfo> irInputs_;
  std::vector<AnchorInstanceInfo> irOutputs_;
  size_t inputsNum_ = 0;
  size_t outputsNum_ = 0;
};

}  // namespace gert

#endif  // OPGEN_EXE_GRAPH_RUNTIME_COMPUTE_NODE_INFO_H
