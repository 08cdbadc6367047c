// The stores under the explorer: the packed state store (widening keeps ids, contents and
// lookups) and the chunked array (indices across block boundaries).
#include <algorithm>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "explore/chunked_vector.h"
#include "explore/state_store.h"

namespace druba {
namespace {

TEST(PackedStateStoreTest, WideningKeepsIdsContentsAndLookups) {
  PackedStateStore store(3);
  std::vector<std::vector<Word>> states;
  std::mt19937 rng(3);
  // 1-byte cells first, then 2-byte and 4-byte words force two repacks.
  for (const Word limit : {Word{200}, Word{60000}, Word{4000000000U}}) {
    for (int i = 0; i < 2000; ++i) {
      std::vector<Word> s{static_cast<Word>(rng() % limit), static_cast<Word>(rng() % 7),
                          static_cast<Word>(rng() % limit)};
      const auto found = store.FindOrInsert(StateView(s));
      const auto it = std::find(states.begin(), states.end(), s);
      if (it == states.end()) {
        EXPECT_TRUE(found.is_new);
        EXPECT_EQ(found.id, states.size());
        states.push_back(s);
      } else {
        EXPECT_FALSE(found.is_new);
        EXPECT_EQ(found.id, static_cast<std::uint32_t>(it - states.begin()));
      }
    }
  }
  EXPECT_EQ(store.bytes_per_word(), 4U);
  ASSERT_EQ(store.size(), states.size());
  for (std::uint32_t id = 0; id < states.size(); ++id) {
    EXPECT_EQ(store.Get(id), states[id]);
    EXPECT_EQ(store.Find(StateView(states[id])), id);
  }
  const std::vector<Word> absent{1, 2, 4294967295U};
  EXPECT_FALSE(store.Find(StateView(absent)).has_value());
}

TEST(PackedStateStoreTest, StaysNarrowForSmallWords) {
  PackedStateStore store(2);
  for (Word w = 0; w < 256; ++w) {
    const std::vector<Word> s{w, 255 - w};
    store.FindOrInsert(StateView(s));
  }
  EXPECT_EQ(store.bytes_per_word(), 1U);
  const std::vector<Word> wide{256, 0};
  EXPECT_TRUE(store.FindOrInsert(StateView(wide)).is_new);
  EXPECT_EQ(store.bytes_per_word(), 2U);
  EXPECT_EQ(store.Get(3), (std::vector<Word>{3, 252}));
}

TEST(ChunkedVectorTest, IndicesAcrossBlocks) {
  ChunkedVector<std::uint32_t> v;
  const std::size_t n = 3 * ChunkedVector<std::uint32_t>::kBlock + 17;
  for (std::size_t i = 0; i < n; ++i) v.push_back(static_cast<std::uint32_t>(i * 7));
  ASSERT_EQ(v.size(), n);
  for (std::size_t i = 0; i < n; i += 997) EXPECT_EQ(v[i], i * 7);
  EXPECT_EQ(v[n - 1], (n - 1) * 7);
  v[ChunkedVector<std::uint32_t>::kBlock] = 1;
  EXPECT_EQ(v[ChunkedVector<std::uint32_t>::kBlock], 1U);
  EXPECT_GE(v.capacity(), n);
  EXPECT_LT(v.capacity(), n + ChunkedVector<std::uint32_t>::kBlock);
}

}  // namespace
}  // namespace druba
