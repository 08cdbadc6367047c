// An arena of fixed-width packed states with a hash index: one call, FindOrInsert, gives a state
// its dense id. Ids are assigned 0, 1, 2, ... in insertion order and never change.
#pragma once

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include <absl/container/flat_hash_set.h>

#include "common/resources.h"

namespace druba {

using Word = std::uint32_t;
using StateView = std::span<const Word>;

// The time a store's growths took, measured only where one is near (NearGrowth: two comparisons
// per insert elsewhere), and the next ones predicted from them: each moves every entry stored
// then. The index (a rehash) and the arena (a copy) are timed apart: they grow at different
// times, and the rehash costs several times the copy.
class GrowthTimer {
 public:
  // insert() once, timed; a table whose capacity (`index()`, `arena()`) changed across it took
  // that time.
  template <class Index, class Arena, class Insert>
  auto Time(std::size_t entries, Index&& index, Arena&& arena, Insert&& insert) {
    const std::size_t index_before = index();
    const std::size_t arena_before = arena();
    const auto start = std::chrono::steady_clock::now();
    auto found = insert();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (index() != index_before) index_ = {seconds, entries};
    if (arena() != arena_before) arena_ = {seconds, entries};
    return found;
  }
  // The predicted seconds of the next growth of the index, of the arena, at `entries`.
  double Predict(bool index, bool arena, std::size_t entries) const {
    return (index ? index_.Scaled(entries) : 0) + (arena ? arena_.Scaled(entries) : 0);
  }

 private:
  struct Measured {
    double seconds = 0;
    std::size_t entries = 0;
    // A rehash of twice the entries took 2.1 to 2.8 times as long here (the tables leave the
    // caches): the prediction grows with the entries to the power 1.5, 2.83 times per doubling.
    double Scaled(std::size_t now) const {
      if (entries == 0) return 0;
      return seconds * std::pow(static_cast<double>(now) / static_cast<double>(entries), 1.5);
    }
  };
  Measured index_;
  Measured arena_;
};

class StateStore {
 public:
  explicit StateStore(std::size_t width);
  StateStore(const StateStore&) = delete;  // the index's functors point at this object
  StateStore& operator=(const StateStore&) = delete;

  struct Found {
    std::uint32_t id;
    bool is_new;
  };
  Found FindOrInsert(StateView words);
  std::optional<std::uint32_t> Find(StateView words) const;

  StateView Get(std::uint32_t id) const { return {arena_.data() + id * width_, width_}; }
  std::size_t size() const { return count_; }
  std::size_t width() const { return width_; }
  // Bytes held by the arena and the index (capacity, not just what is used).
  std::size_t MemoryBytes() const;
  // What the next growth of the index or the arena would cost at once, when one is near.
  Growth NextGrowth() const;
  void Reserve(std::size_t states);

 private:
  struct Hash {
    using is_transparent = void;
    const StateStore* store;
    std::size_t operator()(std::uint32_t id) const { return (*this)(store->Get(id)); }
    std::size_t operator()(StateView words) const;
  };
  struct Eq {
    using is_transparent = void;
    const StateStore* store;
    static bool Same(StateView a, StateView b);
    bool operator()(std::uint32_t a, std::uint32_t b) const { return a == b; }
    bool operator()(std::uint32_t a, StateView b) const { return Same(store->Get(a), b); }
    bool operator()(StateView a, std::uint32_t b) const { return Same(a, store->Get(b)); }
  };

  Found Insert(StateView words);
  // Whether the next insert may grow the index or the arena.
  bool NearGrowth() const {
    return (index_.size() + 2) * 8 >= index_.capacity() * 7 ||
           arena_.size() + width_ > arena_.capacity();
  }

  std::size_t width_;
  std::size_t count_ = 0;
  std::vector<Word> arena_;
  absl::flat_hash_set<std::uint32_t, Hash, Eq> index_;
  GrowthTimer growth_;
};

// The explorer's store of program states: like StateStore, but each word takes 1, 2 or 4 bytes,
// the narrowest width that holds every word stored so far. A larger word widens the cells and
// repacks the arena. Hashing and equality work on the unpacked words, so the index survives a
// repack unchanged, and a state's hash is the same as in StateStore.
class PackedStateStore {
 public:
  explicit PackedStateStore(std::size_t width);
  PackedStateStore(const PackedStateStore&) = delete;  // the index's functors point here
  PackedStateStore& operator=(const PackedStateStore&) = delete;

  StateStore::Found FindOrInsert(StateView words);
  std::optional<std::uint32_t> Find(StateView words) const;

  // Unpacks state `id` into out[0..width).
  void Get(std::uint32_t id, Word* out) const {
    for (std::size_t i = 0; i < width_; ++i) out[i] = Cell(id, i);
  }
  std::vector<Word> Get(std::uint32_t id) const {
    std::vector<Word> out(width_);
    Get(id, out.data());
    return out;
  }
  std::size_t size() const { return count_; }
  std::size_t width() const { return width_; }
  std::size_t bytes_per_word() const { return bytes_; }
  std::size_t MemoryBytes() const;
  // What the next growth of the index or the arena would cost at once, when one is near.
  Growth NextGrowth() const;

 private:
  Word Cell(std::uint32_t id, std::size_t i) const;
  bool Same(std::uint32_t id, StateView words) const;
  void Widen(std::size_t bytes);
  StateStore::Found Insert(StateView words);
  bool NearGrowth() const {
    return (index_.size() + 2) * 8 >= index_.capacity() * 7 ||
           arena_.size() + width_ * bytes_ > arena_.capacity();
  }

  struct Hash {
    using is_transparent = void;
    const PackedStateStore* store;
    std::size_t operator()(std::uint32_t id) const;
    std::size_t operator()(StateView words) const;
  };
  struct Eq {
    using is_transparent = void;
    const PackedStateStore* store;
    bool operator()(std::uint32_t a, std::uint32_t b) const { return a == b; }
    bool operator()(std::uint32_t a, StateView b) const { return store->Same(a, b); }
    bool operator()(StateView a, std::uint32_t b) const { return store->Same(b, a); }
  };

  std::size_t width_;
  std::size_t bytes_ = 1;
  std::size_t count_ = 0;
  std::vector<std::uint8_t> arena_;
  absl::flat_hash_set<std::uint32_t, Hash, Eq> index_;
  GrowthTimer growth_;
};

}  // namespace druba
