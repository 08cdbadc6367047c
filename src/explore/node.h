// The search's vocabulary: bounds, a kept Pareto pair of a key (NodeRecord), a move, and the
// counters of a search (DESIGN.md sections 2 and 3).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

namespace druba {

struct Bounds {
  std::uint32_t rounds = 0;
  std::uint32_t delays = 0;
  friend bool operator==(const Bounds&, const Bounds&) = default;
};

// One kept Pareto pair of a key.
// A key is (program state, finder); it is identified by one of its records (its representative),
// so a record carries the key itself and no separate key table is needed (8 bytes per record).
struct NodeRecord {
  std::uint32_t state;        // program state id
  std::uint32_t rounds : 11;  // at most kMaxBound
  std::uint32_t delays : 11;  // at most kMaxBound
  std::uint32_t finder : 7;   // the thread of the last slot (fewer than kMaxThreads threads)
  // In a key's representative (its pair with the fewest rounds): whether the key has another
  // pair, so that the one with the fewest delays is in the index of second pairs (ParetoIndex).
  std::uint32_t has_second : 1;
};
static_assert(sizeof(NodeRecord) == 8);
inline constexpr std::uint32_t kNoParent = std::numeric_limits<std::uint32_t>::max();
inline constexpr std::uint32_t kMaxBound = 2047;   // rounds and delays fit in 11 bits
inline constexpr std::uint32_t kMaxThreads = 128;  // a finder fits in 7 bits
// Record ids stay below 2^31 - 1: a parked move packs one with a bit, and a key-table slot holds
// one plus one or (in the parallel store) a flag bit.
inline constexpr std::size_t kMaxRecords = (std::size_t{1} << 31) - 1;

inline NodeRecord MakeRecord(std::uint32_t state_id, std::uint32_t finder, std::uint32_t rounds,
                             std::uint32_t delays) {
  NodeRecord record{};
  record.state = state_id;
  record.rounds = rounds & kMaxBound;  // within the bounds, which are at most kMaxBound
  record.delays = delays & kMaxBound;
  record.finder = finder & (kMaxThreads - 1);
  return record;
}

// Whether the pair of `a` dominates (rounds, delays): at most as many of both.
inline bool Dominates(const NodeRecord& a, std::uint32_t rounds, std::uint32_t delays) {
  return a.rounds <= rounds && a.delays <= delays;
}

// A move of a record: the step of the next thread or its delay, packed with the record's id.
enum MoveKind : std::uint32_t { kStep = 0, kDelay = 1 };
inline std::uint32_t PackMove(std::uint32_t record, MoveKind kind) {
  return record << 1 | kind;
}
inline std::uint32_t MoveRecord(std::uint32_t move) {
  return move >> 1;
}
inline MoveKind MoveKindOf(std::uint32_t move) {
  return static_cast<MoveKind>(move & 1);
}

struct ExploreStats {
  std::uint64_t image_calls = 0;   // calls to the model's successor function
  std::uint64_t delay_moves = 0;   // delays taken
  std::uint64_t transitions = 0;   // successor nodes generated (steps, stutters and delays)
  std::uint64_t dominated = 0;     // rediscoveries dropped because a kept pair dominates them
  std::uint64_t reexpansions = 0;  // rediscoveries kept as a new Pareto pair
  ExploreStats& operator+=(const ExploreStats& o) {
    image_calls += o.image_calls;
    delay_moves += o.delay_moves;
    transitions += o.transitions;
    dominated += o.dominated;
    reexpansions += o.reexpansions;
    return *this;
  }
};

}  // namespace druba
