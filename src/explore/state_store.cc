#include "explore/state_store.h"

#include <xxhash.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <stdexcept>

namespace druba {

StateStore::StateStore(std::size_t width) : width_(width), index_(0, Hash{this}, Eq{this}) {
  if (width == 0) throw std::invalid_argument("StateStore: width must be positive");
}

std::size_t StateStore::Hash::operator()(StateView words) const {
  return static_cast<std::size_t>(XXH3_64bits(words.data(), words.size_bytes()));
}

bool StateStore::Eq::Same(StateView a, StateView b) {
  return std::memcmp(a.data(), b.data(), a.size_bytes()) == 0;
}

StateStore::Found StateStore::FindOrInsert(StateView words) {
  if (!NearGrowth()) return Insert(words);
  return growth_.Time(
      count_, [this] { return index_.capacity(); }, [this] { return arena_.capacity(); },
      [&] { return Insert(words); });
}

StateStore::Found StateStore::Insert(StateView words) {
  bool inserted = false;
  const auto it = index_.lazy_emplace(words, [&](const auto& construct) {
    const auto id = static_cast<std::uint32_t>(count_);
    arena_.insert(arena_.end(), words.begin(), words.end());
    ++count_;
    inserted = true;
    construct(id);
  });
  return {*it, inserted};
}

std::optional<std::uint32_t> StateStore::Find(StateView words) const {
  const auto it = index_.find(words);
  if (it == index_.end()) return std::nullopt;
  return *it;
}

std::size_t StateStore::MemoryBytes() const {
  // flat_hash_set: one control byte plus one slot per bucket.
  return arena_.capacity() * sizeof(Word) + index_.capacity() * (sizeof(std::uint32_t) + 1);
}

Growth StateStore::NextGrowth() const {
  // A flat_hash_set grows at 7/8 load, to twice the capacity; a vector at its capacity.
  const bool index = index_.size() * 10 >= index_.capacity() * 8;
  const bool arena = arena_.size() * 10 >= arena_.capacity() * 9;
  std::size_t bytes = 0;
  if (index) bytes += index_.capacity() * 2 * (sizeof(std::uint32_t) + 1);
  if (arena) bytes += arena_.capacity() * 2 * sizeof(Word);
  return {static_cast<double>(bytes), growth_.Predict(index, arena, count_)};
}

void StateStore::Reserve(std::size_t states) {
  arena_.reserve(states * width_);
  index_.reserve(states);
}

// Cells hold a word's low bytes, copied with memcpy.
static_assert(std::endian::native == std::endian::little);

PackedStateStore::PackedStateStore(std::size_t width)
    : width_(width), index_(0, Hash{this}, Eq{this}) {
  if (width == 0) throw std::invalid_argument("PackedStateStore: width must be positive");
}

Word PackedStateStore::Cell(std::uint32_t id, std::size_t i) const {
  const std::uint8_t* cell = arena_.data() + (std::size_t{id} * width_ + i) * bytes_;
  switch (bytes_) {
    case 1:
      return *cell;
    case 2: {
      std::uint16_t v = 0;
      std::memcpy(&v, cell, sizeof v);
      return v;
    }
    default: {
      Word v = 0;
      std::memcpy(&v, cell, sizeof v);
      return v;
    }
  }
}

bool PackedStateStore::Same(std::uint32_t id, StateView words) const {
  for (std::size_t i = 0; i < width_; ++i) {
    if (Cell(id, i) != words[i]) return false;
  }
  return true;
}

std::size_t PackedStateStore::Hash::operator()(StateView words) const {
  return static_cast<std::size_t>(XXH3_64bits(words.data(), words.size_bytes()));
}

std::size_t PackedStateStore::Hash::operator()(std::uint32_t id) const {
  constexpr std::size_t kInline = 32;
  if (store->width_ <= kInline) {
    std::array<Word, kInline> words{};
    store->Get(id, words.data());
    return (*this)(StateView(words.data(), store->width_));
  }
  const std::vector<Word> words = store->Get(id);
  return (*this)(StateView(words));
}

void PackedStateStore::Widen(std::size_t bytes) {
  std::vector<std::uint8_t> wider(count_ * width_ * bytes);
  for (std::uint32_t id = 0; id < count_; ++id) {
    for (std::size_t i = 0; i < width_; ++i) {
      const Word v = Cell(id, i);
      std::memcpy(wider.data() + (std::size_t{id} * width_ + i) * bytes, &v, bytes);  // little end
    }
  }
  arena_.swap(wider);
  bytes_ = bytes;
}

StateStore::Found PackedStateStore::FindOrInsert(StateView words) {
  Word largest = 0;
  for (const Word w : words) largest = std::max(largest, w);
  const std::size_t need = largest < (1U << 8) ? 1 : largest < (1U << 16) ? 2 : 4;
  if (need > bytes_) Widen(need);  // a larger word than any stored: the state is new
  if (!NearGrowth()) return Insert(words);
  return growth_.Time(
      count_, [this] { return index_.capacity(); }, [this] { return arena_.capacity(); },
      [&] { return Insert(words); });
}

StateStore::Found PackedStateStore::Insert(StateView words) {
  bool inserted = false;
  const auto it = index_.lazy_emplace(words, [&](const auto& construct) {
    const auto id = static_cast<std::uint32_t>(count_);
    const std::size_t at = arena_.size();
    arena_.resize(at + width_ * bytes_);
    for (std::size_t i = 0; i < width_; ++i) {
      std::memcpy(arena_.data() + at + i * bytes_, &words[i], bytes_);  // little endian
    }
    ++count_;
    inserted = true;
    construct(id);
  });
  return {*it, inserted};
}

std::optional<std::uint32_t> PackedStateStore::Find(StateView words) const {
  const auto it = index_.find(words);
  if (it == index_.end()) return std::nullopt;
  return *it;
}

Growth PackedStateStore::NextGrowth() const {
  // A flat_hash_set grows at 7/8 load, to twice the capacity; a vector at its capacity.
  const bool index = index_.size() * 10 >= index_.capacity() * 8;
  const bool arena = arena_.size() * 10 >= arena_.capacity() * 9;
  std::size_t bytes = 0;
  if (index) bytes += index_.capacity() * 2 * (sizeof(std::uint32_t) + 1);
  if (arena) bytes += arena_.capacity() * 2;
  return {static_cast<double>(bytes), growth_.Predict(index, arena, count_)};
}

std::size_t PackedStateStore::MemoryBytes() const {
  return arena_.capacity() + index_.capacity() * (sizeof(std::uint32_t) + 1);
}

}  // namespace druba
