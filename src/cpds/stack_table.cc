#include "cpds/stack_table.h"

#include <algorithm>

namespace druba::cpds {

StackTable::StackTable() : stripes_(std::make_unique<std::array<Stripe, kStripes>>()) {
  EnsureBlock(0)[0] = {0, kEmpty};  // node 0 stands for the empty stack
  next_id_.store(1, std::memory_order_release);
}

StackTable::~StackTable() {
  for (std::atomic<Node*>& block : blocks_) delete[] block.load(std::memory_order_relaxed);
}

StackTable::Node* StackTable::EnsureBlock(std::size_t block) {
  Node* nodes = blocks_[block].load(std::memory_order_acquire);
  if (nodes != nullptr) return nodes;
  const std::lock_guard<std::mutex> lock(grow_mutex_);
  nodes = blocks_[block].load(std::memory_order_relaxed);
  if (nodes == nullptr) {
    nodes = new Node[BlockSize(block)];
    blocks_[block].store(nodes, std::memory_order_release);
  }
  return nodes;
}

StackId StackTable::Push(Symbol top, StackId rest) {
  const std::uint64_t key = static_cast<std::uint64_t>(top) << 32 | rest;
  // The stripe comes from the high bits of a multiplicative hash; the map hashes the key again.
  Stripe& stripe = (*stripes_)[(key * 0x9E3779B97F4A7C15ULL) >> 58];
  const std::lock_guard<std::mutex> lock(stripe.mutex);
  const auto [it, inserted] = stripe.index.try_emplace(key, 0);
  if (inserted) {
    const std::size_t id = next_id_.fetch_add(1, std::memory_order_relaxed);
    const std::size_t block = BlockOf(id);
    EnsureBlock(block)[id - BlockStart(block)] = {top, rest};
    it->second = static_cast<StackId>(id);
  }
  return it->second;
}

StackId StackTable::Intern(const Stack& bottom_to_top) {
  StackId id = kEmpty;
  for (const Symbol symbol : bottom_to_top) id = Push(symbol, id);
  return id;
}

Stack StackTable::Contents(StackId id) const {
  Stack stack;
  for (; id != kEmpty; id = Rest(id)) stack.push_back(Top(id));
  std::reverse(stack.begin(), stack.end());
  return stack;
}

std::size_t StackTable::MemoryBytes() const {
  std::size_t bytes = 0;
  for (std::size_t b = 0; b < kBlocks; ++b) {
    if (blocks_[b].load(std::memory_order_acquire) != nullptr) bytes += BlockSize(b) * sizeof(Node);
  }
  for (const Stripe& stripe : *stripes_) {
    bytes += stripe.index.capacity() * (sizeof(std::pair<std::uint64_t, StackId>) + 1);
  }
  return bytes;
}

}  // namespace druba::cpds
