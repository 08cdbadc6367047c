// The engine's parts, each alone on hand-written records and graphs: the Pareto index
// (pareto_index.h), the frontier's layer order (frontier.h), the sharded store of a block
// (block.h) and the backward path search (path_search.h).
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "common/worker_pool.h"
#include "explore/block.h"
#include "explore/chunked_vector.h"
#include "explore/frontier.h"
#include "explore/node.h"
#include "explore/pareto_index.h"
#include "explore/path_search.h"
#include "support/fixed_graph.h"

namespace druba {
namespace {

using testing::FixedGraph;
using Edge = FixedGraph::Edge;

// Appends a record and returns its id.
std::uint32_t Add(ChunkedVector<NodeRecord>& records, std::uint32_t state, std::uint32_t finder,
                  std::uint32_t rounds, std::uint32_t delays) {
  records.push_back(MakeRecord(state, finder, rounds, delays));
  return static_cast<std::uint32_t>(records.size() - 1);
}

TEST(ParetoIndexTest, AKeysFirstPairHasTheFewestRoundsAndItsSecondTheFewestDelays) {
  ChunkedVector<NodeRecord> records;
  ParetoIndex index(records, /*n=*/2);
  index.Grow(1);
  const std::uint32_t a = Add(records, 0, 1, 3, 2);  // (3,2)
  index.Slot(0, 1) = a + 1;
  EXPECT_EQ(index.Check(1), "");
  EXPECT_TRUE(index.Dominated(a, 3, 2));
  EXPECT_TRUE(index.Dominated(a, 4, 5));
  EXPECT_FALSE(index.Dominated(a, 4, 1));
  EXPECT_FALSE(index.Dominated(a, 2, 9));
  // (4,1): more rounds, fewer delays, as a delay raise would not give it but a round raise may.
  const std::uint32_t b = Add(records, 0, 1, 4, 1);
  index.AddPair(a, b);
  EXPECT_EQ(index.Slot(0, 1), a + 1);  // still the fewest rounds
  EXPECT_EQ(index.Check(1), "");
  EXPECT_TRUE(index.Dominated(a, 5, 1));   // by (4,1)
  EXPECT_TRUE(index.Dominated(a, 3, 9));   // by (3,2)
  EXPECT_FALSE(index.Dominated(a, 3, 1));  // neither
  // (2,5): fewer rounds than both: it becomes the representative, (4,1) stays second.
  const std::uint32_t c = Add(records, 0, 1, 2, 5);
  index.AddPair(a, c);
  EXPECT_EQ(index.Slot(0, 1), c + 1);
  EXPECT_EQ(index.Check(1), "");
  EXPECT_TRUE(index.Dominated(c, 4, 1));
  EXPECT_TRUE(index.Dominated(c, 2, 5));
  // The middle pair (3,2) is no longer indexed: (3,3) is dominated only by it. In the explorer's
  // order such a pair never arrives (frontier.h); the index may keep it twice, never lose it.
  EXPECT_FALSE(index.Dominated(c, 3, 3));
}

TEST(ParetoIndexTest, CheckFindsAWrongRepresentativeAComparablePairAndAMissingKey) {
  ChunkedVector<NodeRecord> records;
  ParetoIndex index(records, 2);
  index.Grow(2);
  const std::uint32_t a = Add(records, 0, 0, 1, 1);
  const std::uint32_t b = Add(records, 0, 0, 0, 3);
  index.Slot(0, 0) = a + 1;  // but b has fewer rounds
  EXPECT_NE(index.Check(1), "");
  index.Slot(0, 0) = b + 1;
  records[b].has_second = 0;
  EXPECT_NE(index.Check(1), "");  // a is the key's pair with the fewest delays, not indexed
  ChunkedVector<NodeRecord> comparable;
  ParetoIndex other(comparable, 2);
  other.Grow(1);
  const std::uint32_t x = Add(comparable, 0, 1, 1, 1);
  Add(comparable, 0, 1, 2, 2);  // dominated by x, yet kept
  other.Slot(0, 1) = x + 1;
  EXPECT_NE(other.Check(1), "");
  ChunkedVector<NodeRecord> lone;
  ParetoIndex missing(lone, 2);
  missing.Grow(1);
  Add(lone, 0, 0, 0, 0);  // a record whose key has no slot
  EXPECT_NE(missing.Check(0), "");
}

TEST(ParetoIndexTest, ShardsSplitTheSecondPairsAndAgreeWithOneShard) {
  for (const unsigned shards : {1U, 3U}) {
    ChunkedVector<NodeRecord> records;
    ParetoIndex index(records, 3);
    index.SetShards(shards);
    index.Grow(50);
    for (std::uint32_t s = 0; s < 50; ++s) {
      const std::uint32_t a = Add(records, s, s % 3, 5, 0);
      index.Slot(s, s % 3) = a + 1;
      index.AddPair(a, Add(records, s, s % 3, 1, 4));
      index.AddPair(index.Slot(s, s % 3) - 1, Add(records, s, s % 3, 3, 2));
    }
    EXPECT_EQ(index.num_shards(), shards);
    EXPECT_EQ(index.Check(50), "") << shards << " shards";
    for (std::uint32_t s = 0; s < 50; ++s) {
      const std::uint32_t key = index.Slot(s, s % 3) - 1;
      EXPECT_EQ(records[key].rounds, 1U);
      EXPECT_TRUE(index.Dominated(key, 5, 0));
      EXPECT_FALSE(index.Dominated(key, 2, 3));
    }
  }
}

TEST(FrontierTest, CountingSortIsStableByKey) {
  const std::vector<std::uint32_t> items{7, 3, 9, 4, 8, 1};
  std::vector<std::uint32_t> out(items.size());
  Frontier::CountingSort(
      items.size(), [&](std::size_t i) { return items[i]; },
      [](std::uint32_t item) { return item % 3; }, out);
  EXPECT_EQ(out, (std::vector<std::uint32_t>{3, 9, 7, 4, 1, 8}));
}

TEST(FrontierTest, ALayerTakesEachRunOfEqualDelaysStepsFirstThenDelays) {
  ChunkedVector<NodeRecord> records;
  Frontier frontier(records, 2);
  // Three records of one depth (rounds 1, finder 0), stored in increasing delays.
  std::vector<std::uint32_t> next{Add(records, 0, 0, 1, 0), Add(records, 1, 0, 1, 0),
                                  Add(records, 2, 0, 1, 1)};
  std::vector<std::uint32_t> layer;
  ASSERT_TRUE(frontier.NextLayer(next, layer));
  EXPECT_TRUE(next.empty());
  EXPECT_EQ(layer, (std::vector<std::uint32_t>{PackMove(0, kStep), PackMove(1, kStep),
                                               PackMove(0, kDelay), PackMove(1, kDelay),
                                               PackMove(2, kStep), PackMove(2, kDelay)}));
  EXPECT_FALSE(frontier.NextLayer(next, layer));
}

TEST(FrontierTest, RaisesResumeParkedMovesInDepthOrderMergedByDelays) {
  ChunkedVector<NodeRecord> records;
  Frontier frontier(records, 2);
  const std::uint32_t a = Add(records, 0, 1, 2, 0);  // depth 5, parked at the round bound 2
  const std::uint32_t b = Add(records, 1, 1, 2, 1);  // depth 5
  frontier.ParkRounds(std::vector<std::uint32_t>{PackMove(b, kStep), PackMove(a, kDelay)});
  frontier.CountDelaysParked(1);
  EXPECT_EQ(frontier.parked_moves(), 3U);
  frontier.ResumeRounds();
  std::vector<std::uint32_t> next;
  std::vector<std::uint32_t> layer;
  ASSERT_TRUE(frontier.NextLayer(next, layer));
  // Both resumed moves give successors with one delay (b's step, a's delay): found order kept.
  EXPECT_EQ(layer, (std::vector<std::uint32_t>{PackMove(b, kStep), PackMove(a, kDelay)}));
  EXPECT_FALSE(frontier.NextLayer(next, layer));
  frontier.EndRaise();
  // A delay raise from bound 1 resumes the delay moves of the records with one delay stored since
  // the last delay raise (here: since the start): b only.
  frontier.ResumeDelays(1);
  ASSERT_TRUE(frontier.NextLayer(next, layer));
  EXPECT_EQ(layer, (std::vector<std::uint32_t>{PackMove(b, kDelay)}));
  EXPECT_FALSE(frontier.NextLayer(next, layer));
}

TEST(FrontierTest, TheShallowerOfStoredRecordsAndResumedMovesGoesFirst) {
  ChunkedVector<NodeRecord> records;
  Frontier frontier(records, 2);
  const std::uint32_t deep = Add(records, 0, 0, 3, 0);     // depth 6
  const std::uint32_t shallow = Add(records, 1, 1, 2, 0);  // depth 5
  frontier.ParkRounds(std::vector<std::uint32_t>{PackMove(shallow, kStep)});
  frontier.ResumeRounds();
  std::vector<std::uint32_t> next{deep};
  std::vector<std::uint32_t> layer;
  ASSERT_TRUE(frontier.NextLayer(next, layer));
  EXPECT_EQ(layer, (std::vector<std::uint32_t>{PackMove(shallow, kStep)}));
  EXPECT_EQ(next.size(), 1U);  // the deeper records wait for their layer
  ASSERT_TRUE(frontier.NextLayer(next, layer));
  EXPECT_EQ(layer, (std::vector<std::uint32_t>{PackMove(deep, kStep), PackMove(deep, kDelay)}));
}

TEST(ParallelStoreTest, DecidesAsTheStoreInOrderWould) {
  ChunkedVector<NodeRecord> records;
  ParetoIndex index(records, 2);
  index.SetShards(2);
  index.Grow(3);
  const std::uint32_t old = Add(records, 0, 0, 2, 2);  // a key stored before the block
  index.Slot(0, 0) = old + 1;
  ParallelStore store;
  store.Begin();
  store.Add({old, 0, 3, 3, 0, true}, false);  // dominated by the stored (2,2)
  store.Add({old, 0, 1, 3, 0, true}, false);  // a new pair of the old key
  store.Add({old, 1, 1, 1, 1, true}, true);   // a new key, new state
  store.Add({old, 1, 2, 1, 1, true}, false);  // dominated by the pair earlier in the block
  store.Add({old, 2, 1, 0, 0, true}, true);   // a new key
  store.Add({old, 0, 1, 3, 0, true}, false);  // dominated by the new pair earlier in the block
  WorkerPool pool;
  store.Decide(index, pool);
  ExploreStats stats;
  const auto [kept, new_keys] = store.AssignIds(records.size(), stats);
  EXPECT_EQ(kept, 3U);
  EXPECT_EQ(new_keys, 2U);
  EXPECT_EQ(stats.dominated, 3U);
  EXPECT_EQ(stats.reexpansions, 1U);
  records.resize(records.size() + kept);
  store.Apply(index, records, nullptr, pool);
  EXPECT_EQ(index.Check(3), "");
  std::vector<std::uint32_t> fresh;
  store.ForEachFresh([&](std::uint32_t state, std::uint32_t rec) {
    fresh.push_back(state);
    fresh.push_back(rec);
  });
  EXPECT_EQ(fresh, (std::vector<std::uint32_t>{1, 2, 2, 3}));  // ids in block order after `old`
}

TEST(PathSearchTest, FindsAStepADelayAndAStutterBackwards) {
  // Thread 0 moves its local 0 -> 1 (shared 0 -> 5); thread 1 has no edge: it stutters.
  FixedGraph graph(0, {0, 0}, {{{0, 0, 5, 1}}, {}});
  PackedStateStore states(graph.state_width());
  ChunkedVector<NodeRecord> records;
  const std::uint32_t init = states.FindOrInsert(StateView(std::vector<Word>{0, 0, 0})).id;
  const std::uint32_t moved = states.FindOrInsert(StateView(std::vector<Word>{5, 1, 0})).id;
  Add(records, init, 1, 0, 0);                              // 0: initial
  Add(records, init, 0, 1, 1);                              // 1: thread 0 delayed
  Add(records, init, 1, 1, 1);                              // 2: thread 1 stuttered
  const std::uint32_t step = Add(records, moved, 0, 2, 1);  // 3: thread 0 stepped
  EXPECT_EQ(SearchPathBack(graph, records, states, step), (std::vector<std::uint32_t>{0, 1, 2, 3}));
  // A record no move reaches: the search gives up (an empty path), it does not loop.
  const std::uint32_t orphan = Add(records, moved, 1, 5, 0);
  EXPECT_TRUE(SearchPathBack(graph, records, states, orphan).empty());
}

}  // namespace
}  // namespace druba
