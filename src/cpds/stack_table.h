// Hash-consed stacks: a stack is the id of a node (top, rest), so equal stacks have equal ids and
// a CPDS state is a fixed-width record of the shared state and one stack id per thread.
#pragma once

#include <cstdint>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "cpds/cpds.h"

namespace druba::cpds {

using StackId = std::uint32_t;

class StackTable {
 public:
  static constexpr StackId kEmpty = 0;

  StackTable() { nodes_.push_back({0, kEmpty}); }  // node 0 stands for the empty stack

  StackId Push(Symbol top, StackId rest) {
    const std::uint64_t key = static_cast<std::uint64_t>(top) << 32 | rest;
    const auto [it, inserted] = index_.try_emplace(key, static_cast<StackId>(nodes_.size()));
    if (inserted) nodes_.push_back({top, rest});
    return it->second;
  }
  Symbol Top(StackId id) const { return nodes_[id].top; }
  StackId Rest(StackId id) const { return nodes_[id].rest; }

  // The number of symbols on the stack, counting no further than `limit + 1`.
  std::uint32_t DepthUpTo(StackId id, std::uint32_t limit) const {
    std::uint32_t depth = 0;
    for (; id != kEmpty && depth <= limit; id = Rest(id)) ++depth;
    return depth;
  }
  StackId Intern(const Stack& bottom_to_top);
  Stack Contents(StackId id) const;  // bottom to top
  std::size_t size() const { return nodes_.size(); }
  std::size_t MemoryBytes() const {
    return nodes_.capacity() * sizeof(Node) +
           index_.capacity() * (sizeof(std::pair<std::uint64_t, StackId>) + 1);
  }

 private:
  struct Node {
    Symbol top;
    StackId rest;
  };
  std::vector<Node> nodes_;
  absl::flat_hash_map<std::uint64_t, StackId> index_;
};

}  // namespace druba::cpds
