// The engine alone, on models given by their transition tables (tests/support/fixed_graph.h): no
// model kind, no abstraction. R(r,d) on hand-computed graphs and against Def. 1 by brute force
// along random raise orders, the Pareto index after every raise, and the paths to every state
// (with parent links and found backwards) as valid Round-Robin schedules.
#include <cstdint>
#include <cstdio>
#include <random>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "explore/explorer.h"
#include "support/fixed_graph.h"
#include "support/sweep.h"

namespace druba {
namespace {

using testing::FixedGraph;
using Edge = FixedGraph::Edge;
using States = std::set<std::vector<Word>>;

struct NoListener {
  bool OnNewState(std::uint32_t /*record*/, StateView /*state*/) { return true; }
};

States Stored(const Explorer<FixedGraph, NoListener>& ex) {
  States out;
  for (std::uint32_t id = 0; id < ex.num_states(); ++id) out.insert(ex.state(id));
  return out;
}

States ReachFromScratch(FixedGraph& graph, Bounds bounds) {
  NoListener listener;
  Explorer<FixedGraph, NoListener> ex(graph, listener);
  ex.Start(bounds);
  return Stored(ex);
}

TEST(EngineTest, HandComputedGraphs) {
  // T0 moves the shared value 0 -> 1, then T1 moves it 1 -> 2: one round reaches all three.
  FixedGraph forward(0, {0, 0}, {{{0, 0, 1, 0}}, {{1, 0, 2, 0}}});
  EXPECT_EQ(ReachFromScratch(forward, {1, 0}), (States{{0, 0, 0}, {1, 0, 0}, {2, 0, 0}}));
  // The other way round T0 stutters in round 1 (nothing enabled), so 2 needs a second round;
  // a delay does not help.
  FixedGraph backward(0, {0, 0}, {{{1, 0, 2, 0}}, {{0, 0, 1, 0}}});
  EXPECT_EQ(ReachFromScratch(backward, {1, 0}), (States{{0, 0, 0}, {1, 0, 0}}));
  EXPECT_EQ(ReachFromScratch(backward, {1, 3}), (States{{0, 0, 0}, {1, 0, 0}}));
  EXPECT_EQ(ReachFromScratch(backward, {2, 0}), (States{{0, 0, 0}, {1, 0, 0}, {2, 0, 0}}));
  // Both threads want the shared value 0; T0 always takes it first unless its turn is delayed.
  FixedGraph race(0, {0, 0}, {{{0, 0, 1, 1}}, {{0, 0, 2, 1}}});
  for (std::uint32_t r = 1; r <= 5; ++r) {
    EXPECT_EQ(ReachFromScratch(race, {r, 0}), (States{{0, 0, 0}, {1, 1, 0}})) << r;
  }
  EXPECT_EQ(ReachFromScratch(race, {1, 1}), (States{{0, 0, 0}, {1, 1, 0}, {2, 0, 1}}));
}

// A random order of raises from (1,0) to (4,3): after each, the stored states are R(r,d) by
// Def. 1 and by a from-scratch start at the same bounds, and the Pareto index is exact.
TEST(EngineTest, IncrementalRaisesAgreeWithDef1OnRandomGraphs) {
  std::mt19937 rng(7);
  std::size_t checks = 0;
  for (int round = 0; round < testing::Sweep(200); ++round) {
    const auto threads = static_cast<std::uint32_t>(2 + rng() % 3);
    FixedGraph graph = FixedGraph::Random(rng, threads, 3, 3, 4);
    NoListener listener;
    Explorer<FixedGraph, NoListener> ex(graph, listener);
    ASSERT_TRUE(ex.Start({1, 0}));
    Bounds at{1, 0};
    while (at.rounds < 4 || at.delays < 3) {
      const bool rounds = at.delays == 3 || (at.rounds < 4 && rng() % 2 == 0);
      ASSERT_TRUE(rounds ? ex.RaiseRounds() : ex.RaiseDelays());
      (rounds ? at.rounds : at.delays) += 1;
      ASSERT_EQ(ex.bounds().rounds, at.rounds);
      ASSERT_EQ(ex.bounds().delays, at.delays);
      const States stored = Stored(ex);
      EXPECT_EQ(stored, testing::Def1Reach(graph, at.rounds, at.delays))
          << "graph " << round << " at (" << at.rounds << "," << at.delays << ")";
      EXPECT_EQ(stored, ReachFromScratch(graph, at)) << "graph " << round;
      EXPECT_EQ(ex.CheckParetoIndex(), "") << "graph " << round;
      ++checks;
    }
  }
  std::fprintf(stderr, "EngineTest: R(r,d) checked at %zu bounds\n", checks);
  EXPECT_GT(checks, testing::AtLeastU(1000));
}

// Every record's path, by parent links and found backwards, is a Round-Robin schedule from the
// initial node: each slot belongs to the thread after the last, a step gives a successor (or the
// same state when nothing is enabled), a delay keeps the state and counts one delay, and the
// rounds count the slots.
TEST(EngineTest, PathsAreRoundRobinSchedules) {
  std::mt19937 rng(11);
  std::size_t paths = 0;
  for (int round = 0; round < testing::Sweep(200); ++round) {
    const auto threads = static_cast<std::uint32_t>(2 + rng() % 2);
    FixedGraph graph = FixedGraph::Random(rng, threads, 4, 3, 4);
    for (const bool parents : {true, false}) {
      NoListener listener;
      Explorer<FixedGraph, NoListener> ex(graph, listener);
      ex.KeepParents(parents);
      ex.Start({4, 2});
      for (std::uint32_t id = 0; id < ex.num_records(); ++id) {
        const std::vector<std::uint32_t> path = ex.PathTo(id);
        ASSERT_FALSE(path.empty()) << "no path to record " << id;
        ASSERT_EQ(path.back(), id);
        const NodeRecord& first = ex.record(path.front());
        EXPECT_EQ(first.rounds, 0U);
        EXPECT_EQ(first.delays, 0U);
        EXPECT_EQ(first.finder, threads - 1);
        for (std::size_t i = 1; i < path.size(); ++i) {
          const NodeRecord& a = ex.record(path[i - 1]);
          const NodeRecord& b = ex.record(path[i]);
          ASSERT_EQ(b.finder, (a.finder + 1) % threads);
          ASSERT_EQ(b.rounds, a.rounds + (b.finder == 0 ? 1U : 0U));
          const std::vector<Word> from = ex.state(a.state);
          const std::vector<Word> to = ex.state(b.state);
          if (b.delays == a.delays + 1) {
            EXPECT_EQ(from, to) << "a delay changed the state";
            continue;
          }
          ASSERT_EQ(b.delays, a.delays);
          bool any = false;
          bool hit = false;
          graph.ForEachSuccessor(StateView(from), b.finder, [&](std::uint32_t, StateView s) {
            any = true;
            hit = hit || std::vector<Word>(s.begin(), s.end()) == to;
          });
          EXPECT_TRUE(any ? hit : from == to) << "not a step of thread " << b.finder;
        }
        ++paths;
      }
    }
  }
  std::fprintf(stderr, "EngineTest: %zu paths checked\n", paths);
  EXPECT_GT(paths, testing::AtLeastU(2000));
}

}  // namespace
}  // namespace druba
