// The explorer against an independent computation of Def. 1 (tests/support/reference.h), on the
// paper's Ex. 8 and on many random small CPDS.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "common/files.h"
#include "cpds/model.h"
#include "cpds/reader.h"
#include "explore/explorer.h"
#include "support/reference.h"
#include "support/sweep.h"

namespace druba {
namespace {

using testing::PlainState;

struct CountingListener {
  std::size_t states = 0;
  bool OnNewState(std::uint32_t, StateView) {
    ++states;
    return true;
  }
};

std::set<PlainState> Reached(const Explorer<cpds::CpdsModel, CountingListener>& ex,
                             const cpds::CpdsModel& model) {
  std::set<PlainState> out;
  for (std::uint32_t id = 0; id < ex.num_states(); ++id) {
    const std::vector<Word> s = ex.state(id);
    PlainState plain{s[0], {}};
    for (std::uint32_t t = 0; t < model.num_threads(); ++t) {
      plain.stacks.push_back(model.stacks().Contents(s[1 + t]));
    }
    out.insert(plain);
  }
  return out;
}

std::set<cpds::Shared> SharedOf(const std::set<PlainState>& states) {
  std::set<cpds::Shared> out;
  for (const PlainState& s : states) out.insert(s.shared);
  return out;
}

std::pair<cpds::Cpds, cpds::InitialState> LoadEx8() {
  const std::string dir = DRUBA_SOURCE_DIR "/models/";
  Warnings warnings;
  cpds::Cpds c = cpds::ParsePds(ReadFile(dir + "ex8.pds"), "ex8.pds", &warnings);
  cpds::InitialState i = cpds::ParseInit(ReadFile(dir + "ex8.init"), "ex8.init", c);
  return {c, i};
}

// The paper's Table 1: reachable shared states of Ex. 8 for r = 1..3, d = 0..4, computed from
// scratch at every cell and incrementally along a path through the table.
TEST(ExplorerTest, ReproducesTable1OfThePaper) {
  auto [c, init] = LoadEx8();
  const std::set<cpds::Shared> two{0, 1};
  const std::set<cpds::Shared> three{0, 1, 2};
  for (std::uint32_t r = 1; r <= 3; ++r) {
    for (std::uint32_t d = 0; d <= 4; ++d) {
      cpds::CpdsModel model(c, init);
      CountingListener listener;
      Explorer<cpds::CpdsModel, CountingListener> ex(model, listener);
      ASSERT_TRUE(ex.Start({r, d}));
      EXPECT_EQ(SharedOf(Reached(ex, model)), d < 2 ? two : three) << "r=" << r << " d=" << d;
    }
  }
  // Incrementally, along the driver's path (1,0) (2,0) (2,1) (2,2) (3,2) (3,3) (3,4).
  cpds::CpdsModel model(c, init);
  CountingListener listener;
  Explorer<cpds::CpdsModel, CountingListener> ex(model, listener);
  ASSERT_TRUE(ex.Start());
  EXPECT_EQ(SharedOf(Reached(ex, model)), std::set<cpds::Shared>{0});
  ex.RaiseRounds();
  EXPECT_EQ(SharedOf(Reached(ex, model)), two);
  ex.RaiseRounds();
  ex.RaiseDelays();
  EXPECT_EQ(SharedOf(Reached(ex, model)), two);
  ex.RaiseDelays();
  EXPECT_EQ(SharedOf(Reached(ex, model)), three);
}

TEST(ExplorerTest, AStutterIsAStepAndADelayIsNot) {
  // One thread, no rules: the only state is reached; R(1,0) takes one stutter step.
  cpds::Cpds c;
  c.file = "blocked";
  c.shared_states = 1;
  c.threads.push_back({0, 0, 1, {}});
  cpds::CpdsModel model(c, {0, {{0}}});
  CountingListener listener;
  Explorer<cpds::CpdsModel, CountingListener> ex(model, listener);
  ASSERT_TRUE(ex.Start({1, 0}));
  EXPECT_EQ(ex.num_states(), 1u);
  EXPECT_EQ(ex.stats().image_calls, 1u);
  EXPECT_EQ(ex.stats().delay_moves, 0u);
}

// DESIGN.md section 3's invariant: after every bound change, the stored states equal R(r,d).
void CheckIncrementalAgainstDef1(std::mt19937& rng, const testing::RandomCpdsOptions& options) {
  auto [c, init] = testing::RandomCpds(rng, options);
  constexpr std::uint32_t kMax = 6;
  const testing::Def1Reference reference(c, init, kMax, kMax);
  cpds::CpdsModel model(c, init);
  CountingListener listener;
  Explorer<cpds::CpdsModel, CountingListener> ex(model, listener);
  ASSERT_TRUE(ex.Start());
  ASSERT_EQ(Reached(ex, model), reference.Reach(0, 0));
  while (ex.bounds().rounds < kMax || ex.bounds().delays < kMax) {
    const bool rounds = ex.bounds().delays == kMax ||
                        (ex.bounds().rounds < kMax && std::bernoulli_distribution(0.5)(rng));
    ASSERT_TRUE(rounds ? ex.RaiseRounds() : ex.RaiseDelays());
    const Bounds b = ex.bounds();
    ASSERT_EQ(Reached(ex, model), reference.Reach(b.rounds, b.delays))
        << "threads=" << c.threads.size() << " r=" << b.rounds << " d=" << b.delays;
    ASSERT_EQ(listener.states, ex.num_states());
    ASSERT_EQ(ex.CheckParetoIndex(), "");
  }
}

TEST(ExplorerTest, IncrementalEqualsDef1OnRandomProgramsWithRecursion) {
  std::mt19937 rng(20261121);
  for (int i = 0; i < testing::Sweep(600); ++i) {
    SCOPED_TRACE("program " + std::to_string(i));
    CheckIncrementalAgainstDef1(rng, {4, 3, 3, 4, true});
    if (HasFatalFailure()) return;
  }
}

TEST(ExplorerTest, IncrementalEqualsDef1OnRandomProgramsWithoutRecursion) {
  std::mt19937 rng(7);
  for (int i = 0; i < testing::Sweep(600); ++i) {
    SCOPED_TRACE("program " + std::to_string(i));
    CheckIncrementalAgainstDef1(rng, {4, 3, 3, 5, false});
    if (HasFatalFailure()) return;
  }
}

// The most pairs any key has.
template <class Ex>
std::size_t MostPairsOfAKey(const Ex& ex) {
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t> pairs;
  std::size_t most = 0;
  for (std::uint32_t id = 0; id < ex.num_records(); ++id) {
    most = std::max(most, ++pairs[{ex.record(id).state, ex.record(id).finder}]);
  }
  return most;
}

// A random program and a search over it (the program outlives the model, which refers to it).
struct RandomSearch {
  RandomSearch(std::mt19937& rng, const testing::RandomCpdsOptions& options)
      : program(testing::RandomCpds(rng, options)),
        model(program.first, program.second),
        ex(model, listener) {}
  std::pair<cpds::Cpds, cpds::InitialState> program;
  cpds::CpdsModel model;
  CountingListener listener;
  Explorer<cpds::CpdsModel, CountingListener> ex;
};

// Keys with many incomparable (rounds, delays) pairs: only the one with the fewest rounds and the
// one with the fewest delays are indexed. Random programs with longer bounds until one has a key
// with five pairs (one in several hundred does); the index stays exact, and the pairs
// incomparable, after every raise on the way.
TEST(ExplorerTest, KeysWithManyPairsKeepAnExactIndex) {
  std::mt19937 rng(99);
  std::size_t programs = 0;
  for (int i = 0; i < 1000 && programs == 0; ++i) {
    SCOPED_TRACE("program " + std::to_string(i));
    RandomSearch search(rng, {4, 3, 3, 6, i % 2 == 0});
    auto& ex = search.ex;
    ASSERT_TRUE(ex.Start());
    for (std::uint32_t step = 0; step < 24; ++step) {
      ASSERT_TRUE(step % 2 == 0 ? ex.RaiseDelays() : ex.RaiseRounds());
      ASSERT_EQ(ex.CheckParetoIndex(), "");
    }
    if (MostPairsOfAKey(ex) >= 5) ++programs;
  }
  EXPECT_EQ(programs, 1u);
}

// --jobs: the second phase stores in the order of the block whatever the number of workers, so
// several workers give the same states, keys, records, statistics and parent links as one, after
// every raise (and both equal Def. 1). Blocks of any size run in parallel here (parallel_min 1).
struct PlainRecord {
  PlainState state;
  std::uint32_t rounds, delays, finder, parent;
  friend bool operator==(const PlainRecord&, const PlainRecord&) = default;
};

std::vector<PlainRecord> Records(const Explorer<cpds::CpdsModel, CountingListener>& ex,
                                 const cpds::CpdsModel& model) {
  std::vector<PlainRecord> out;
  for (std::uint32_t id = 0; id < ex.num_records(); ++id) {
    const NodeRecord& r = ex.record(id);
    const std::vector<Word> s = ex.state(r.state);
    PlainRecord plain{{s[0], {}}, r.rounds, r.delays, r.finder, 0};
    for (std::uint32_t t = 0; t < model.num_threads(); ++t) {
      plain.state.stacks.push_back(model.stacks().Contents(s[1 + t]));
    }
    const std::vector<std::uint32_t> path = ex.PathTo(id);
    plain.parent = path.size() < 2 ? kNoParent : path[path.size() - 2];
    out.push_back(std::move(plain));
  }
  return out;
}

void CheckParallelAgainstOneThread(std::mt19937& rng, const testing::RandomCpdsOptions& options,
                                   unsigned jobs, bool adaptive) {
  auto [c, init] = testing::RandomCpds(rng, options);
  constexpr std::uint32_t kMax = 5;
  const testing::Def1Reference reference(c, init, kMax, kMax);
  cpds::CpdsModel one_model(c, init);
  cpds::CpdsModel par_model(c, init);
  CountingListener one_listener;
  CountingListener par_listener;
  Explorer<cpds::CpdsModel, CountingListener> one(one_model, one_listener);
  Explorer<cpds::CpdsModel, CountingListener> par(par_model, par_listener);
  par.SetJobs(jobs, 1, adaptive);
  ASSERT_EQ(par.jobs(), jobs);
  ASSERT_TRUE(one.Start());
  ASSERT_TRUE(par.Start());
  for (;;) {
    const Bounds b = par.bounds();
    ASSERT_EQ(Reached(par, par_model), reference.Reach(b.rounds, b.delays))
        << "threads=" << c.threads.size() << " r=" << b.rounds << " d=" << b.delays;
    ASSERT_EQ(Records(par, par_model), Records(one, one_model));
    ASSERT_EQ(par.num_keys(), one.num_keys());
    ASSERT_EQ(par.stats().image_calls, one.stats().image_calls);
    ASSERT_EQ(par.stats().transitions, one.stats().transitions);
    ASSERT_EQ(par.stats().dominated, one.stats().dominated);
    ASSERT_EQ(par.parked_moves(), one.parked_moves());
    ASSERT_EQ(par_listener.states, par.num_states());
    ASSERT_EQ(par.CheckParetoIndex(), "");
    if (b.rounds == kMax && b.delays == kMax) break;
    const bool rounds =
        b.delays == kMax || (b.rounds < kMax && std::bernoulli_distribution(0.5)(rng));
    ASSERT_TRUE(rounds ? par.RaiseRounds() : par.RaiseDelays());
    ASSERT_TRUE(rounds ? one.RaiseRounds() : one.RaiseDelays());
  }
}

TEST(ExplorerTest, ParallelExpansionEqualsOneThreadOnRandomPrograms) {
  std::mt19937 rng(4242);
  for (int i = 0; i < testing::Sweep(150); ++i) {
    SCOPED_TRACE("program " + std::to_string(i));
    // Every fifth program: blocks switch between one worker and all (--jobs 0).
    CheckParallelAgainstOneThread(rng, {4, 3, 3, 4, i % 2 == 0}, 2 + i % 3, i % 5 == 4);
    if (HasFatalFailure()) return;
  }
}

// Traces without parent links: the path SearchPathTo finds to a record starts at an initial
// node, every move in it is a step (or stutter) or delay of the thread whose turn it is, with
// exactly the recorded counters, and it is as long as the path by parent links.
TEST(ExplorerTest, PathsFoundBackwardsAreValidSchedules) {
  std::mt19937 rng(31337);
  for (int i = 0; i < testing::Sweep(150); ++i) {
    SCOPED_TRACE("program " + std::to_string(i));
    RandomSearch search(rng, {4, 3, 3, 4, i % 2 == 0});
    auto& ex = search.ex;
    auto& model = search.model;
    ASSERT_TRUE(ex.Start());
    for (int raise = 0; raise < 6; ++raise) {
      ASSERT_TRUE(raise % 2 == 0 ? ex.RaiseRounds() : ex.RaiseDelays());
    }
    const std::uint32_t n = model.num_threads();
    for (std::uint32_t id = 0; id < ex.num_records(); id += 1 + id / 8) {
      const std::vector<std::uint32_t> path = ex.SearchPathTo(id);
      ASSERT_FALSE(path.empty()) << "record " << id;
      ASSERT_EQ(path.back(), id);
      ASSERT_EQ(path.size(), ex.PathTo(id).size());
      const NodeRecord& first = ex.record(path.front());
      ASSERT_TRUE(first.rounds == 0 && first.delays == 0 && first.finder == n - 1);
      for (std::size_t k = 1; k < path.size(); ++k) {
        const NodeRecord& from = ex.record(path[k - 1]);
        const NodeRecord& to = ex.record(path[k]);
        ASSERT_EQ(to.finder, (from.finder + 1) % n);
        ASSERT_EQ(to.rounds, from.rounds + (to.finder == 0 ? 1U : 0U));
        if (to.delays == from.delays + 1) {
          ASSERT_EQ(to.state, from.state);  // a delay
          continue;
        }
        ASSERT_EQ(to.delays, from.delays);
        std::vector<Word> before = ex.state(from.state);
        const std::vector<Word> after = ex.state(to.state);
        bool any = false;
        bool hit = false;
        model.ForEachSuccessor(StateView(before), to.finder, [&](std::uint32_t, StateView s) {
          any = true;
          hit = hit || std::equal(s.begin(), s.end(), after.begin(), after.end());
        });
        ASSERT_TRUE(hit || (!any && before == after)) << "record " << id << " move " << k;
      }
    }
  }
}

// Many threads push overlapping stacks at once: equal stacks get equal ids, different stacks
// different ids, and every id reads back as the stack it was given for.
TEST(StackTableTest, ConcurrentPushesInternEachStackOnce) {
  cpds::StackTable table;
  constexpr unsigned kThreads = 4;
  constexpr std::uint32_t kStacks = 20000;
  // Stack i is the binary digits of i (as symbols 1 and 2) under a common bottom symbol 3.
  const auto stack_of = [](std::uint32_t i) {
    cpds::Stack s{3};
    for (; i != 0; i >>= 1) s.push_back(1 + (i & 1));
    return s;
  };
  std::vector<std::vector<cpds::StackId>> ids(kThreads, std::vector<cpds::StackId>(kStacks));
  {
    std::vector<std::jthread> threads;
    for (unsigned t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (std::uint32_t k = 0; k < kStacks; ++k) {
          const std::uint32_t i = t % 2 == 0 ? k : kStacks - 1 - k;  // opposite orders
          ids[t][i] = table.Intern(stack_of(i));
        }
      });
    }
  }
  std::set<cpds::StackId> distinct;
  for (std::uint32_t i = 0; i < kStacks; ++i) {
    for (unsigned t = 1; t < kThreads; ++t) ASSERT_EQ(ids[t][i], ids[0][i]) << i;
    ASSERT_EQ(table.Contents(ids[0][i]), stack_of(i)) << i;
    distinct.insert(ids[0][i]);
  }
  EXPECT_EQ(distinct.size(), kStacks);
}

}  // namespace
}  // namespace druba
