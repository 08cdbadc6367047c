#include "distributed/comm.h"

#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <numeric>
#include <thread>

#include <mpi.h>

namespace druba::distributed {
namespace {

std::uint64_t Reduce(std::uint64_t mine, MPI_Op op) {
  std::uint64_t all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, op, MPI_COMM_WORLD);
  return all;
}

// Displacements of consecutive blocks of the given sizes.
std::vector<int> Offsets(const std::vector<int>& counts) {
  std::vector<int> offsets(counts.size(), 0);
  std::exclusive_scan(counts.begin(), counts.end(), offsets.begin(), 0);
  return offsets;
}

std::size_t Total(const std::vector<int>& counts) {
  std::size_t total = 0;
  for (const int count : counts) total += static_cast<std::size_t>(count);
  return total;
}

}  // namespace

Session::Session(int* argc, char*** argv) {
  MPI_Init(argc, argv);
}

Session::~Session() {
  MPI_Finalize();
}

void Session::Abort(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::abort();  // MPI_Abort does not return
}

Comm::Comm() {
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

std::uint64_t Comm::Sum(std::uint64_t mine) const {
  return Reduce(mine, MPI_SUM);
}
std::uint64_t Comm::Min(std::uint64_t mine) const {
  return Reduce(mine, MPI_MIN);
}
std::uint64_t Comm::Max(std::uint64_t mine) const {
  return Reduce(mine, MPI_MAX);
}

std::vector<std::uint8_t> Comm::Exchange(const std::vector<std::vector<std::uint8_t>>& outboxes) {
  const auto n = static_cast<std::size_t>(size_);
  std::vector<int> send_counts(n);
  std::vector<int> receive_counts(n);
  std::vector<std::uint8_t> sending;
  for (std::size_t p = 0; p < n; ++p) {
    send_counts[p] = static_cast<int>(outboxes[p].size());
    sending.insert(sending.end(), outboxes[p].begin(), outboxes[p].end());
    if (static_cast<int>(p) != rank_ && !outboxes[p].empty()) {
      bytes_sent_ += outboxes[p].size();
      ++messages_sent_;
    }
  }
  ++exchanges_;
  MPI_Alltoall(send_counts.data(), 1, MPI_INT, receive_counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  const std::vector<int> send_offsets = Offsets(send_counts);
  const std::vector<int> receive_offsets = Offsets(receive_counts);
  std::vector<std::uint8_t> received(Total(receive_counts));
  MPI_Alltoallv(sending.data(), send_counts.data(), send_offsets.data(), MPI_BYTE, received.data(),
                receive_counts.data(), receive_offsets.data(), MPI_BYTE, MPI_COMM_WORLD);
  return received;
}

std::vector<std::vector<std::uint8_t>> Comm::Gather(const std::vector<std::uint8_t>& mine) const {
  const auto n = static_cast<std::size_t>(size_);
  const int count = static_cast<int>(mine.size());
  std::vector<int> counts(rank_ == 0 ? n : 0);
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<int> offsets;
  std::vector<std::uint8_t> all;
  if (rank_ == 0) {
    offsets = Offsets(counts);
    all.resize(Total(counts));
  }
  MPI_Gatherv(mine.data(), count, MPI_BYTE, all.data(), counts.data(), offsets.data(), MPI_BYTE, 0,
              MPI_COMM_WORLD);
  std::vector<std::vector<std::uint8_t>> out;
  if (rank_ != 0) return out;
  for (std::size_t p = 0; p < n; ++p) {
    const auto begin = all.begin() + offsets[p];
    out.emplace_back(begin, begin + counts[p]);
  }
  return out;
}

std::vector<std::vector<std::uint8_t>> Comm::AllGather(
    const std::vector<std::uint8_t>& mine) const {
  const auto n = static_cast<std::size_t>(size_);
  const int count = static_cast<int>(mine.size());
  std::vector<int> counts(n);
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  const std::vector<int> offsets = Offsets(counts);
  std::vector<std::uint8_t> all(Total(counts));
  MPI_Allgatherv(mine.data(), count, MPI_BYTE, all.data(), counts.data(), offsets.data(), MPI_BYTE,
                 MPI_COMM_WORLD);
  std::vector<std::vector<std::uint8_t>> out;
  for (std::size_t p = 0; p < n; ++p) {
    const auto begin = all.begin() + offsets[p];
    out.emplace_back(begin, begin + counts[p]);
  }
  return out;
}

bool Comm::AnyStopped(bool stopped, std::string& reason) const {
  const auto none = static_cast<std::uint64_t>(size_);
  const std::uint64_t first = Min(stopped ? static_cast<std::uint64_t>(rank_) : none);
  if (first == none) return false;
  reason = Broadcast(reason, static_cast<int>(first));
  return true;
}

std::string Comm::BroadcastIdle(const std::string& text, int from) const {
  auto length = static_cast<std::uint64_t>(text.size());
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ibcast(&length, 1, MPI_UINT64_T, from, MPI_COMM_WORLD, &request);
  int done = 0;
  MPI_Test(&request, &done, MPI_STATUS_IGNORE);
  while (done == 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
  }
  std::string out = rank_ == from ? text : std::string(length, '\0');
  MPI_Bcast(out.data(), static_cast<int>(length), MPI_CHAR, from, MPI_COMM_WORLD);
  return out;
}

std::string Comm::Broadcast(const std::string& text, int from) const {
  auto length = static_cast<std::uint64_t>(text.size());
  MPI_Bcast(&length, 1, MPI_UINT64_T, from, MPI_COMM_WORLD);
  std::string out = rank_ == from ? text : std::string(length, '\0');
  MPI_Bcast(out.data(), static_cast<int>(length), MPI_CHAR, from, MPI_COMM_WORLD);
  return out;
}

}  // namespace druba::distributed
