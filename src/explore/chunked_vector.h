// An append-only array in blocks of 2^16 elements: growing it copies at most one block, never
// holds two copies of the whole, and only the last block has spare capacity (each block grows by
// a quarter at a time, so small searches stay small).
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace druba {

template <class T>
class ChunkedVector {
 public:
  static constexpr std::size_t kBlockBits = 16;
  static constexpr std::size_t kBlock = std::size_t{1} << kBlockBits;

  T& operator[](std::size_t i) { return blocks_[i >> kBlockBits][i & (kBlock - 1)]; }
  const T& operator[](std::size_t i) const { return blocks_[i >> kBlockBits][i & (kBlock - 1)]; }

  void push_back(const T& value) {
    if (blocks_.empty() || blocks_.back().size() == kBlock) blocks_.emplace_back();
    std::vector<T>& last = blocks_.back();
    if (last.size() == last.capacity()) {
      // Grow by a quarter, not double: the last block is the only one with spare room, and in a
      // small search it is the whole array.
      last.reserve(std::min(kBlock, last.capacity() + last.capacity() / 4 + 16));
    }
    last.push_back(value);
    ++size_;
  }
  // Grows to `n` elements, the new ones value-initialized (never shrinks).
  void resize(std::size_t n) {
    while (size_ < n) push_back(T{});
  }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Elements allocated (for memory figures).
  std::size_t capacity() const {
    std::size_t total = 0;
    for (const auto& block : blocks_) total += block.capacity();
    return total;
  }

 private:
  std::vector<std::vector<T>> blocks_;
  std::size_t size_ = 0;
};

}  // namespace druba
