// The sandwich proof (DESIGN.md section 8): the upper bound O against brute force, the thread
// symmetry on tiny hand-written programs and orbit counts, and the proof against the plateau
// proof and brute force on random programs, symmetric ones among them.
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <random>
#include <set>

#include "abstraction/driver.h"
#include "abstraction/symmetry.h"
#include "abstraction/upper_bound.h"
#include "cpds/model.h"
#include "cpds/reader.h"
#include "cpds/top_k.h"
#include "support/reference.h"
#include "support/sweep.h"

namespace druba {
namespace {

using cpds::CpdsModel;
using cpds::TopKAbstraction;
using testing::AlphaOf;
using testing::PlainState;

std::set<std::string> Described(const StateStore& set, const TopKAbstraction& abs) {
  std::set<std::string> out;
  for (std::uint32_t id = 0; id < set.size(); ++id) out.insert(abs.Describe(set.Get(id)));
  return out;
}

// O for `abs`, from alpha of the model's initial states.
std::set<std::string> UpperBound(CpdsModel& model, const TopKAbstraction& abs, bool joint) {
  auto set = std::make_unique<StateStore>(abs.width());
  std::vector<Word> a(abs.width());
  model.ForEachInitial([&](StateView s) {
    abs.Abstract(s, std::span<Word>(a));
    set->FindOrInsert(StateView(a));
  });
  const SandwichSetup setup = cpds::MakeSandwich(abs, joint, false);
  const auto search = setup.upper_bound(std::move(set));
  // Small budgets: the search resumes where it stopped.
  while (search->Advance(3, nullptr) == UpperBoundSearch::Status::kRunning) {
  }
  return Described(search->set(), abs);
}

// A random program whose threads all run one random block from one initial stack (so they are
// interchangeable; i % 3 == 1), one block from their own random initial stacks (i % 3 == 2: not
// interchangeable unless the stacks happen to agree), or a plain random program.
std::pair<cpds::Cpds, cpds::InitialState> RandomProgram(std::mt19937& rng, int i) {
  auto [c, init] = testing::RandomCpds(rng, {3, 3, 3, 4, i % 2 == 0});
  if (i % 3 != 0 && c.threads.size() > 1) {
    for (std::size_t t = 1; t < c.threads.size(); ++t) {
      c.threads[t] = c.threads[0];
      if (i % 3 == 1) init.stacks[t] = init.stacks[0];
    }
  }
  return {std::move(c), std::move(init)};
}

// O contains alpha of every reachable state (brute force under free scheduling where the
// reachable set is finite, a bounded Def. 1 exploration where it is not), and the joint relation
// is never less precise than the static one.
TEST(SandwichTest, UpperBoundContainsTheReachableAbstractStates) {
  std::mt19937 rng(2024);
  int exact = 0, loose = 0, bounded = 0, joint_tighter = 0;
  for (int i = 0; i < testing::Sweep(500); ++i) {
    SCOPED_TRACE("program " + std::to_string(i));
    auto [c, init] = RandomProgram(rng, i);
    const std::uint32_t k = 1 + static_cast<std::uint32_t>(i % 3);
    CpdsModel model(c, init);
    const TopKAbstraction abs(model, k, std::nullopt);
    const auto joint = UpperBound(model, abs, true);
    const auto fixed = UpperBound(model, abs, false);
    for (const std::string& a : joint) ASSERT_TRUE(fixed.contains(a)) << a;
    joint_tighter += joint.size() < fixed.size();
    std::set<std::string> reached;
    if (const auto free = testing::FreeReach(c, init, 3000)) {
      for (const PlainState& s : *free) reached.insert(AlphaOf(s, k));
      (reached == joint ? exact : loose) += 1;
    } else {
      ++bounded;
      const testing::Def1Reference bigger(c, init, 6, 3);
      for (const PlainState& s : bigger.Reach(6, 3)) reached.insert(AlphaOf(s, k));
    }
    for (const std::string& a : reached) ASSERT_TRUE(joint.contains(a)) << a;
  }
  std::cout << "O exact " << exact << ", larger than alpha(R) " << loose << ", unbounded "
            << bounded << "; joint relation tighter than static in " << joint_tighter << "\n";
  EXPECT_GT(exact, testing::AtLeast(100));
  EXPECT_GT(bounded, testing::AtLeast(10));
  if (testing::SweepFactor() >= 1) {
    EXPECT_GT(joint_tighter, 0);
  }
}

cpds::Cpds Parse(const std::string& text) {
  Warnings warnings;
  return cpds::ParsePds(text, "tiny.pds", &warnings);
}

std::vector<std::vector<std::uint32_t>> ClassesOf(const std::string& pds, const std::string& init) {
  const cpds::Cpds c = Parse(pds);
  const CpdsModel model(c, cpds::ParseInit(init, "tiny.init", c));
  return TopKAbstraction(model, 2, std::nullopt).Symmetry().classes;
}

TEST(SandwichTest, ThreadsAreInterchangeableOnlyWithTheSameCodeAndInitialStack) {
  const std::string same = "2\nPDA 0 1\n0 0 -> 1 1\n1 1 -> 0 -\nPDA 0 1\n0 0 -> 1 1\n1 1 -> 0 -\n";
  EXPECT_EQ(ClassesOf(same, "0|0,0"), (std::vector<std::vector<std::uint32_t>>{{0, 1}}));
  // Identical blocks, different initial stacks: not interchangeable.
  EXPECT_TRUE(ClassesOf(same, "0|0,1").empty());
  EXPECT_TRUE(ClassesOf(same, "0|0,0.0").empty());
  // The same rules in another order are the same code.
  const std::string reordered =
      "2\nPDA 0 1\n0 0 -> 1 1\n1 1 -> 0 -\nPDA 0 1\n1 1 -> 0 -\n0 0 -> 1 1\n";
  EXPECT_EQ(ClassesOf(reordered, "0|0,0"), (std::vector<std::vector<std::uint32_t>>{{0, 1}}));
  // One rule differs (a pop against an overwrite to the same shared state).
  const std::string other = "2\nPDA 0 1\n0 0 -> 1 1\n1 1 -> 0 -\nPDA 0 1\n0 0 -> 1 1\n1 1 -> 0 0\n";
  EXPECT_TRUE(ClassesOf(other, "0|0,0").empty());
  // Three threads, two classes: {0, 2} and {1, 3}.
  const std::string mixed =
      "2\nPDA 0 1\n0 0 -> 1 1\nPDA 0 1\n0 1 -> 1 0\nPDA 0 1\n0 0 -> 1 1\nPDA 0 1\n0 1 -> 1 0\n";
  EXPECT_EQ(ClassesOf(mixed, "0|0,1,0,1"),
            (std::vector<std::vector<std::uint32_t>>{{0, 2}, {1, 3}}));
}

TEST(SandwichTest, OrbitSizesCountDistinctPermutations) {
  // Layout [g, t0, t1, t2, t3], component width 1; threads 0-2 interchangeable, 3 fixed.
  SymmetricImage image(5, ThreadSymmetry{1, 1, {{0, 1, 2}}});
  const auto orbit = [&](std::vector<Word> s) {
    std::vector<Word> c(s.size());
    image.Canonical(StateView(s), std::span<Word>(c));
    return image.OrbitSize(StateView(c));
  };
  EXPECT_EQ(orbit({0, 5, 6, 7, 9}), 6u);
  EXPECT_EQ(orbit({0, 5, 5, 7, 9}), 3u);
  EXPECT_EQ(orbit({0, 5, 5, 5, 9}), 1u);
  // Adding every state of two orbits counts each state once.
  for (const auto& s : std::vector<std::vector<Word>>{
           {0, 5, 5, 7, 9}, {0, 7, 5, 5, 9}, {0, 5, 6, 7, 9}, {0, 7, 6, 5, 9}}) {
    image.Add(StateView(s));
  }
  EXPECT_EQ(image.size(), 9u);
  EXPECT_EQ(image.orbits(), 2u);
  const std::vector<Word> permuted{0, 5, 7, 5, 9};
  const std::vector<Word> moved_fixed{0, 5, 5, 9, 7};
  EXPECT_TRUE(image.Contains(StateView(permuted)));
  EXPECT_FALSE(image.Contains(StateView(moved_fixed)));  // thread 3 is not in the class
  // Wider components sort as a whole: (1,2) and (1,3) with K = 2.
  SymmetricImage wide(5, ThreadSymmetry{1, 2, {{0, 1}}});
  std::vector<Word> a{0, 1, 3, 1, 2}, c(5);
  wide.Canonical(StateView(a), std::span<Word>(c));
  EXPECT_EQ(c, (std::vector<Word>{0, 1, 2, 1, 3}));
  EXPECT_EQ(wide.OrbitSize(StateView(c)), 2u);
}

// On random programs (two thirds symmetric), with and without targets, druba with the sandwich
// proof against druba without it and against brute force: the same violations; every `safe`
// agrees with brute force (exactly alpha(R) after a sandwich proof); and wherever both say safe
// (or the plateau proof is safe), the sets agree.
TEST(SandwichTest, SandwichProofsAgreeWithThePlateauProofAndBruteForce) {
  std::mt19937 rng(777);
  std::map<Proof, int> proofs;
  int compared_exact = 0;
  int by_search = 0;  // sandwich proofs whose lower bound the canonical search completed
  int by_rr = 0;      // ... the Round-Robin search
  for (int i = 0; i < testing::Sweep(600); ++i) {
    SCOPED_TRACE("program " + std::to_string(i));
    auto [c, init] = RandomProgram(rng, i);
    const std::uint32_t k = 1 + static_cast<std::uint32_t>(i % 2);
    std::optional<cpds::TargetPattern> target;
    if (i % 4 == 1) {
      target = cpds::TargetPattern{static_cast<cpds::Shared>(i % c.shared_states), {}};
      for (std::size_t t = 0; t < c.threads.size(); ++t) {
        target->stacks.push_back(t == 0 ? std::optional<cpds::Stack>(cpds::Stack{1})
                                        : std::nullopt);
      }
    }
    CpdsModel plain_model(c, init);
    const TopKAbstraction plain_abs(plain_model, k, target);
    PlateauDriver plain(plain_model, plain_abs);
    const RunResult without = plain.Verify();

    CpdsModel model(c, init);
    const TopKAbstraction abs(model, k, target);
    PlateauDriver run(model, abs);
    SandwichSetup setup = cpds::MakeSandwich(abs, /*joint=*/i % 5 != 0, target.has_value());
    if (i % 2 == 0) setup.head_start = 0;  // O alongside the exploration, 1/8 of its work
    // A third without the search over canonical representatives: the lower bound from the
    // Round-Robin search alone.
    if (i % 3 == 2) setup.concrete_symmetry.classes.clear();
    run.UseSandwich(std::move(setup));
    const RunResult with = run.Verify();
    ++proofs[with.proof];
    if (with.proof == Proof::kSandwich)
      ++(with.lower_bound_by_symmetric_search ? by_search : by_rr);
    // The sandwich proof's watcher stops the search when it answers: never an `unknown`.
    ASSERT_NE(with.reason, "listener");

    ASSERT_EQ(with.verdict == Verdict::kViolation, without.verdict == Verdict::kViolation);
    if (with.verdict == Verdict::kSafe && with.proof == Proof::kSandwich) {
      ASSERT_TRUE(with.upper_bound.has_value());
      ASSERT_EQ(run.abstract_states().size(), *with.upper_bound);
    }
    if (with.verdict == Verdict::kSafe && without.verdict == Verdict::kSafe &&
        with.proof != Proof::kUpperBound) {
      ASSERT_EQ(Described(run.abstract_states(), abs),
                Described(plain.abstract_states(), plain_abs));
    }
    const auto free = testing::FreeReach(c, init, 3000);
    if (!free) continue;
    // A finite state space is always decided: by a proof, by exhaustion (where the closure test
    // fails), or by a violation; the sandwich proof may answer while the exact search goes on.
    ASSERT_NE(with.verdict, Verdict::kUnknown) << with.reason;
    ASSERT_NE(without.verdict, Verdict::kUnknown) << without.reason;
    std::set<std::string> alpha;
    bool target_reachable = false;
    for (const PlainState& s : *free) {
      alpha.insert(AlphaOf(s, k));
      target_reachable |=
          target && s.shared == *target->shared && !s.stacks[0].empty() && s.stacks[0].back() == 1;
    }
    ASSERT_EQ(with.verdict == Verdict::kViolation, target_reachable);
    if (with.verdict == Verdict::kSafe && with.proof != Proof::kUpperBound) {
      ++compared_exact;
      ASSERT_EQ(Described(run.abstract_states(), abs), alpha);
    }
  }
  std::cout << "sandwich " << proofs[Proof::kSandwich] << ", plateau " << proofs[Proof::kPlateau]
            << ", upper bound " << proofs[Proof::kUpperBound] << ", no proof "
            << proofs[Proof::kNone] << ", exhausted " << proofs[Proof::kExhausted]
            << "; exact sets compared " << compared_exact
            << "; lower bounds by the canonical search " << by_search << ", by Round-Robin "
            << by_rr << "\n";
  EXPECT_GT(proofs[Proof::kSandwich], testing::AtLeast(100));
  EXPECT_GT(by_search, testing::AtLeast(50));
  EXPECT_GT(by_rr, testing::AtLeast(30));
  EXPECT_GT(proofs[Proof::kUpperBound], testing::AtLeast(10));
  EXPECT_GT(compared_exact, testing::AtLeast(100));
}

}  // namespace
}  // namespace druba
