// The verdict lattice: how the findings of claims that must all hold combine.
#include <algorithm>

#include <gtest/gtest.h>

#include "abstraction/verdict.h"

namespace druba {
namespace {

TEST(VerdictTest, AViolationWinsThenUnknownThenBoundedThenSafe) {
  const Verdict order[] = {Verdict::kViolation, Verdict::kUnknown, Verdict::kBounded,
                           Verdict::kSafe};
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      const Finding got = Combine({order[i], "a"}, {order[j], "b"});
      EXPECT_EQ(got.verdict, order[std::min(i, j)]) << i << " " << j;
      EXPECT_EQ(got.reason, j < i ? "b" : "a") << i << " " << j;
    }
  }
}

TEST(VerdictTest, SafeOnlyWhenEveryClaimIsSafe) {
  Finding total;
  EXPECT_EQ(total.verdict, Verdict::kSafe);  // no claim yet
  total = Combine(total, {Verdict::kSafe, "2 threads"});
  total = Combine(total, {Verdict::kSafe, "3 threads"});
  EXPECT_EQ(total.verdict, Verdict::kSafe);
  total = Combine(total, {Verdict::kUnknown, "not closed"});
  total = Combine(total, {Verdict::kSafe, "4 threads"});
  EXPECT_EQ(total.verdict, Verdict::kUnknown);
  EXPECT_EQ(total.reason, "not closed");
}

}  // namespace
}  // namespace druba
