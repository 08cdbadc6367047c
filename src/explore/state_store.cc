#include "explore/state_store.h"

#include <xxhash.h>

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

void StateStore::Reserve(std::size_t states) {
  arena_.reserve(states * width_);
  index_.reserve(states);
}

}  // namespace druba
