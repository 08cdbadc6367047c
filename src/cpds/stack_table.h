// Hash-consed stacks: a stack is the id of a node (top, rest), so equal stacks have equal ids and
// a CPDS state is a fixed-width record of the shared state and one stack id per thread.
//
// Push may be called from several threads at once (the explorer's parallel expansion, --jobs):
// the index is split into stripes, each behind its own mutex, and nodes live in blocks that never
// move, so Top and Rest need no lock. Ids are dense and, with one thread, assigned 0, 1, 2, ... in
// the order stacks are first pushed; with several threads that order (not the set of stacks)
// depends on the interleaving.
#pragma once

#include <array>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "cpds/cpds.h"

namespace druba::cpds {

using StackId = std::uint32_t;

class StackTable {
 public:
  static constexpr StackId kEmpty = 0;

  StackTable();
  ~StackTable();
  StackTable(const StackTable&) = delete;
  StackTable& operator=(const StackTable&) = delete;

  // The stack `rest` with `top` pushed. Thread-safe.
  StackId Push(Symbol top, StackId rest);
  // For an id this thread got from Push, or that was published to it by a join or a lock.
  Symbol Top(StackId id) const { return NodeAt(id).top; }
  StackId Rest(StackId id) const { return NodeAt(id).rest; }

  // The number of symbols on the stack, counting no further than `limit + 1`.
  std::uint32_t DepthUpTo(StackId id, std::uint32_t limit) const {
    std::uint32_t depth = 0;
    for (; id != kEmpty && depth <= limit; id = Rest(id)) ++depth;
    return depth;
  }
  StackId Intern(const Stack& bottom_to_top);
  Stack Contents(StackId id) const;  // bottom to top
  std::size_t size() const { return next_id_.load(std::memory_order_acquire); }
  std::size_t MemoryBytes() const;

 private:
  struct Node {
    Symbol top;
    StackId rest;
  };
  // Block b >= 1 holds ids [kFirst << (b - 1), kFirst << b); block 0 holds [0, kFirst). Blocks
  // double, so at most half of the allocated nodes are unused, and none is ever copied.
  static constexpr unsigned kFirstBits = 6;
  static constexpr std::size_t kFirst = std::size_t{1} << kFirstBits;
  static constexpr std::size_t kBlocks = 33 - kFirstBits;
  static constexpr std::size_t kStripes = 64;
  static std::size_t BlockOf(std::size_t id) {
    return static_cast<std::size_t>(std::bit_width(id >> kFirstBits));
  }
  static std::size_t BlockStart(std::size_t block) {
    return block == 0 ? 0 : kFirst << (block - 1);
  }
  static std::size_t BlockSize(std::size_t block) {
    return block == 0 ? kFirst : kFirst << (block - 1);
  }
  const Node& NodeAt(StackId id) const {
    const std::size_t block = BlockOf(id);
    return blocks_[block].load(std::memory_order_acquire)[id - BlockStart(block)];
  }
  Node* EnsureBlock(std::size_t block);

  struct Stripe {
    std::mutex mutex;
    absl::flat_hash_map<std::uint64_t, StackId> index;
  };
  std::array<std::atomic<Node*>, kBlocks> blocks_{};
  std::mutex grow_mutex_;  // allocating a block
  std::atomic<std::size_t> next_id_{0};
  std::unique_ptr<std::array<Stripe, kStripes>> stripes_;
};

}  // namespace druba::cpds
