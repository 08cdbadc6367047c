// The worker pool runs every task of a batch exactly once, on distinct threads, and a batch ends
// only when all its tasks have: thousands of batches of changing sizes, as the explorer uses it.
#include "common/worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

namespace druba {
namespace {

TEST(WorkerPoolTest, EachBatchRunsEveryTaskOnceAndEndsWhenAllHaveRun) {
  WorkerPool pool;
  std::vector<int> runs(8);
  for (unsigned batch = 0; batch < 5000; ++batch) {
    const unsigned tasks = 1 + batch % 5;
    std::atomic<unsigned> finished{0};
    std::vector<std::thread::id> ran_on(tasks);
    pool.Run(tasks, [&](unsigned i) {
      ++runs[i];
      ran_on[i] = std::this_thread::get_id();
      finished.fetch_add(1);
    });
    ASSERT_EQ(finished.load(), tasks) << "batch " << batch;
    EXPECT_EQ(ran_on[0], std::this_thread::get_id());
    EXPECT_EQ(std::set<std::thread::id>(ran_on.begin(), ran_on.end()).size(), tasks);
  }
  // Task i runs in every batch with more than i tasks: 5000 batches, sizes 1..5 in turn.
  for (unsigned i = 0; i < 5; ++i) EXPECT_EQ(runs[i], 1000 * static_cast<int>(5 - i)) << i;
}

}  // namespace
}  // namespace druba
