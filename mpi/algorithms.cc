// Hand-written collectives over MPI point-to-point; see mpi/algorithms.h and docs/mpi.md.
//
// Conventions inside this file: `n` is the rank count, `r` this rank, counts are in elements.
// Block partitions are given by their bounds (parts + 1 offsets), so that uneven blocks (a
// count not divisible by the parts, or fewer elements than ranks) need no special case: an
// empty block is a zero-length message.
#include "mpi/algorithms.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <new>
#include <string>

#include "scalewall/base/error.h"

namespace scalewall::mpi {
namespace {

constexpr int kTag = 7100;

int mpi_count(std::size_t elements) {
  SCALEWALL_CHECK(elements <= static_cast<std::size_t>(INT_MAX));
  return static_cast<int>(elements);
}

std::size_t as_size(int value) { return static_cast<std::size_t>(value); }

void sendrecv(const Element* send, std::size_t send_count, int dest, Element* recv,
              std::size_t recv_count, int source, MPI_Comm comm) {
  MPI_Sendrecv(send, mpi_count(send_count), MPI_INT64_T, dest, kTag, recv, mpi_count(recv_count),
               MPI_INT64_T, source, kTag, comm, MPI_STATUS_IGNORE);
}

void send(const Element* data, std::size_t count, int dest, MPI_Comm comm) {
  MPI_Send(data, mpi_count(count), MPI_INT64_T, dest, kTag, comm);
}

void recv(Element* data, std::size_t count, int source, MPI_Comm comm) {
  MPI_Recv(data, mpi_count(count), MPI_INT64_T, source, kTag, comm, MPI_STATUS_IGNORE);
}


// Bounds of `count` elements split into `parts` blocks whose sizes differ by at most one,
// the larger ones first.
std::vector<std::size_t> balanced_bounds(std::size_t count, int parts) {
  const std::size_t p = as_size(parts);
  const std::size_t q = count / p;
  const std::size_t extra = count % p;
  std::vector<std::size_t> bounds(p + 1);
  for (std::size_t i = 0; i <= p; ++i) bounds[i] = i * q + std::min(i, extra);
  return bounds;
}

// The non-power-of-two fold (Thakur, Rabenseifner and Gropp 2005): with p the largest power
// of two <= n and rem = n - p, ranks below 2 rem pair up; the even one of each pair hands
// its data to the odd one and sits out, the odd one takes the new rank r / 2, and ranks from
// 2 rem up take r - rem. The p remaining ranks run the power-of-two algorithm.
struct Fold {
  int p = 1;
  int rem = 0;
  int newrank = 0;  // -1 for a rank that sits out

  int real(int new_rank) const { return new_rank < rem ? 2 * new_rank + 1 : new_rank + rem; }
  // The first original rank a new rank stands for (two ranks below 2 rem, one above).
  int first_real(int new_rank) const {
    return new_rank < rem ? 2 * new_rank : new_rank + rem;
  }
  bool folded(int r) const { return r < 2 * rem; }
};

Fold make_fold(int r, int n) {
  Fold f;
  while (f.p * 2 <= n) f.p *= 2;
  f.rem = n - f.p;
  if (f.folded(r)) {
    f.newrank = r % 2 == 0 ? -1 : r / 2;
  } else {
    f.newrank = r - f.rem;
  }
  return f;
}

// Bounds of the p new ranks over n equal blocks of b elements: new rank i stands for the
// blocks of the original ranks [first_real(i), first_real(i + 1)).
std::vector<std::size_t> folded_bounds(const Fold& f, int n, std::size_t b) {
  std::vector<std::size_t> bounds(as_size(f.p) + 1);
  for (int i = 0; i < f.p; ++i) bounds[as_size(i)] = as_size(f.first_real(i)) * b;
  bounds[as_size(f.p)] = as_size(n) * b;
  return bounds;
}

// Fold in a whole vector: the even rank of each pair sends it, the odd one adds it.
void fold_in_sum(Element* data, std::size_t count, const Fold& f, int r, Element* scratch,
                 MPI_Comm comm) {
  if (!f.folded(r)) return;
  if (r % 2 == 0) {
    send(data, count, r + 1, comm);
  } else {
    recv(scratch, count, r - 1, comm);
    add_into(data, scratch, count);
  }
}

// Fold out a whole vector: the odd rank of each pair sends the result to the even one.
void fold_out_copy(Element* data, std::size_t count, const Fold& f, int r, MPI_Comm comm) {
  if (!f.folded(r)) return;
  if (r % 2 == 1) {
    send(data, count, r - 1, comm);
  } else {
    recv(data, count, r + 1, comm);
  }
}

// Reduce-scatter by recursive halving among the p new ranks: in each step a rank keeps half
// of its current block range, sends the other half to the partner whose rank differs in
// that bit, and adds what it receives. Afterwards new rank i holds the sum of
// [bounds[i], bounds[i + 1]).
void halving_reduce_scatter(Element* work, const std::vector<std::size_t>& bounds, const Fold& f,
                            Element* scratch, MPI_Comm comm) {
  if (f.newrank < 0) return;
  int lo = 0;
  int hi = f.p;
  for (int mask = f.p / 2; mask > 0; mask /= 2) {
    const int partner = f.real(f.newrank ^ mask);
    const int mid = lo + mask;
    const bool lower = (f.newrank & mask) == 0;
    const int keep_lo = lower ? lo : mid;
    const int keep_hi = lower ? mid : hi;
    const int send_lo = lower ? mid : lo;
    const int send_hi = lower ? hi : mid;
    const std::size_t keep_begin = bounds[as_size(keep_lo)];
    const std::size_t keep_count = bounds[as_size(keep_hi)] - keep_begin;
    const std::size_t send_begin = bounds[as_size(send_lo)];
    sendrecv(work + send_begin, bounds[as_size(send_hi)] - send_begin, partner, scratch,
             keep_count, partner, comm);
    add_into(work + keep_begin, scratch, keep_count);
    lo = keep_lo;
    hi = keep_hi;
  }
}

// All-gather by recursive doubling among the p new ranks: new rank i starts with
// [bounds[i], bounds[i + 1]) and in each step swaps its whole range with the partner whose
// rank differs in that bit, doubling it.
void doubling_allgather(Element* work, const std::vector<std::size_t>& bounds, const Fold& f,
                        MPI_Comm comm) {
  if (f.newrank < 0) return;
  int lo = f.newrank;
  int hi = f.newrank + 1;
  for (int mask = 1; mask < f.p; mask *= 2) {
    const int partner_new = f.newrank ^ mask;
    const int partner = f.real(partner_new);
    const int partner_lo = partner_new & ~(mask - 1);
    const int partner_hi = partner_lo + mask;
    const std::size_t begin = bounds[as_size(lo)];
    const std::size_t partner_begin = bounds[as_size(partner_lo)];
    sendrecv(work + begin, bounds[as_size(hi)] - begin, partner, work + partner_begin,
             bounds[as_size(partner_hi)] - partner_begin, partner, comm);
    lo = std::min(lo, partner_lo);
    hi = std::max(hi, partner_hi);
  }
}

// Binomial-tree broadcast from rank 0: a rank receives from the rank that differs in its
// lowest set bit, then sends to the ranks r + 2^k for every smaller bit.
void binomial_bcast(Element* data, std::size_t count, int r, int n, MPI_Comm comm) {
  int mask = 1;
  while (mask < n) {
    if ((r & mask) != 0) {
      recv(data, count, r - mask, comm);
      break;
    }
    mask *= 2;
  }
  for (mask /= 2; mask > 0; mask /= 2) {
    if (r + mask < n) send(data, count, r + mask, comm);
  }
}

// The first `count` elements of `in` copied into scratch.a, for an algorithm that works on its
// input in place.
Element* working_copy(const Element* in, std::size_t count, Scratch& scratch) {
  std::copy(in, in + count, scratch.a.data());
  return scratch.a.data();
}

// Bounds of n equal blocks of b elements.
std::vector<std::size_t> equal_bounds(int n, std::size_t b) {
  std::vector<std::size_t> bounds(as_size(n) + 1);
  for (std::size_t i = 0; i < bounds.size(); ++i) bounds[i] = i * b;
  return bounds;
}

// The ring of the ring algorithms: n - 1 steps over blocks given by bounds (one per rank),
// from the block `first` that this rank holds whole: in step s, send block first - s to the
// right and receive block first - s - 1 from the left (block indices modulo n). Without
// `sum_scratch` the block received is stored in place, an all-gather: every rank ends with
// every block. With it (room for the largest block), the block received is added into this
// rank's partial one, a reduce-scatter: the rank ends with the whole sum of block first + 1.
void ring_pass(Element* data, const std::vector<std::size_t>& bounds, int first, int r, int n,
               Element* sum_scratch, MPI_Comm comm) {
  const int right = (r + 1) % n;
  const int left = (r + n - 1) % n;
  const auto block = [n](int i) { return as_size((i % n + n) % n); };
  for (int s = 0; s < n - 1; ++s) {
    const std::size_t send_b = block(first - s);
    const std::size_t recv_b = block(first - s - 1);
    const std::size_t recv_count = bounds[recv_b + 1] - bounds[recv_b];
    Element* into = sum_scratch != nullptr ? sum_scratch : data + bounds[recv_b];
    sendrecv(data + bounds[send_b], bounds[send_b + 1] - bounds[send_b], right, into,
             recv_count, left, comm);
    if (sum_scratch != nullptr) add_into(data + bounds[recv_b], sum_scratch, recv_count);
  }
}

// ---- all-reduce ----

// Ring: a reduce-scatter ring (n - 1 steps; in step s, send partial block r - s, receive
// block r - s - 1 and add), after which rank r holds the sum of block r + 1, then an
// all-gather ring of the sums (n - 1 steps).
void allreduce_ring(Element* out, std::size_t count, int r, int n, Element* scratch,
                    MPI_Comm comm) {
  if (n == 1) return;
  const std::vector<std::size_t> bounds = balanced_bounds(count, n);
  ring_pass(out, bounds, r, r, n, scratch, comm);
  ring_pass(out, bounds, r + 1, r, n, nullptr, comm);
}

// Recursive doubling: fold, then log2 p steps each swapping the whole vector with the
// partner r ^ 2^k and adding, then unfold.
void allreduce_recursive_doubling(Element* out, std::size_t count, int r, int n,
                                  Element* scratch, MPI_Comm comm) {
  if (n == 1) return;
  const Fold f = make_fold(r, n);
  fold_in_sum(out, count, f, r, scratch, comm);
  if (f.newrank >= 0) {
    for (int mask = 1; mask < f.p; mask *= 2) {
      const int partner = f.real(f.newrank ^ mask);
      sendrecv(out, count, partner, scratch, count, partner, comm);
      add_into(out, scratch, count);
    }
  }
  fold_out_copy(out, count, f, r, comm);
}

// Rabenseifner: fold, reduce-scatter by recursive halving over p blocks, all-gather by
// recursive doubling, unfold.
void allreduce_rabenseifner(Element* out, std::size_t count, int r, int n, Element* scratch,
                            MPI_Comm comm) {
  if (n == 1) return;
  const Fold f = make_fold(r, n);
  fold_in_sum(out, count, f, r, scratch, comm);
  const std::vector<std::size_t> bounds = balanced_bounds(count, f.p);
  halving_reduce_scatter(out, bounds, f, scratch, comm);
  doubling_allgather(out, bounds, f, comm);
  fold_out_copy(out, count, f, r, comm);
}

// Binomial tree: reduce to rank 0 (a rank adds what its children r + 2^k send, for every bit
// below its lowest set bit, then sends to r - 2^lowest), then broadcast from rank 0.
void allreduce_binomial_tree(Element* out, std::size_t count, int r, int n, Element* scratch,
                             MPI_Comm comm) {
  if (n == 1) return;
  for (int mask = 1; mask < n; mask *= 2) {
    if ((r & mask) != 0) {
      send(out, count, r - mask, comm);
      break;
    }
    if (r + mask < n) {
      recv(scratch, count, r + mask, comm);
      add_into(out, scratch, count);
    }
  }
  binomial_bcast(out, count, r, n, comm);
}

// ---- reduce-scatter (in: n blocks of b; out: block r of the sum) ----

// Ring: n - 1 steps; in step s, send partial block r - s - 1 to the right, receive partial
// block r - s - 2 from the left and add this rank's contribution; the last block received
// is block r.
void reduce_scatter_ring(const Element* in, Element* out, std::size_t count, int r, int n,
                         Scratch& scratch, MPI_Comm comm) {
  const std::size_t b = count / as_size(n);
  Element* work = working_copy(in, count, scratch);
  ring_pass(work, equal_bounds(n, b), r - 1, r, n, scratch.b.data(), comm);
  std::copy(work + as_size(r) * b, work + as_size(r + 1) * b, out);
}

// Recursive halving: fold (the even rank of a pair sends its whole input), halve over the
// p new ranks' block ranges, then the odd rank of each pair sends the even one its block.
void reduce_scatter_recursive_halving(const Element* in, Element* out, std::size_t count, int r,
                                      int n, Scratch& scratch, MPI_Comm comm) {
  const std::size_t b = count / as_size(n);
  Element* work = working_copy(in, count, scratch);
  const Fold f = make_fold(r, n);
  fold_in_sum(work, count, f, r, scratch.b.data(), comm);
  halving_reduce_scatter(work, folded_bounds(f, n, b), f, scratch.b.data(), comm);
  if (f.folded(r)) {
    if (r % 2 == 1) {
      send(work + as_size(r - 1) * b, b, r - 1, comm);
    } else {
      recv(out, b, r + 1, comm);
      return;
    }
  }
  std::copy(work + as_size(r) * b, work + as_size(r + 1) * b, out);
}

// ---- all-gather (in: b; out: n blocks of b) ----

void allgather_ring(const Element* in, Element* out, std::size_t count, int r, int n,
                    MPI_Comm comm) {
  const std::size_t b = count / as_size(n);
  std::copy(in, in + b, out + as_size(r) * b);
  ring_pass(out, equal_bounds(n, b), r, r, n, nullptr, comm);
}

// Recursive doubling: fold (the even rank of a pair sends its block to the odd one), double
// over the p new ranks' block ranges, then the odd rank sends the whole result back.
void allgather_recursive_doubling(const Element* in, Element* out, std::size_t count, int r,
                                  int n, MPI_Comm comm) {
  const std::size_t b = count / as_size(n);
  std::copy(in, in + b, out + as_size(r) * b);
  const Fold f = make_fold(r, n);
  if (f.folded(r)) {
    if (r % 2 == 0) {
      send(in, b, r + 1, comm);
    } else {
      recv(out + as_size(r - 1) * b, b, r - 1, comm);
    }
  }
  doubling_allgather(out, folded_bounds(f, n, b), f, comm);
  fold_out_copy(out, count, f, r, comm);
}

// Bruck: ceil(log2 n) steps; in step k (distance 2^k), send the first min(2^k, n - 2^k)
// blocks gathered so far to r - 2^k and append those of r + 2^k; block i then belongs to
// rank r + i, and a final rotation puts every block in its place.
void allgather_bruck(const Element* in, Element* out, std::size_t count, int r, int n,
                     Scratch& scratch, MPI_Comm comm) {
  const std::size_t b = count / as_size(n);
  Element* tmp = working_copy(in, b, scratch);
  for (int k = 1; k < n; k *= 2) {
    const std::size_t blocks = as_size(std::min(k, n - k));
    sendrecv(tmp, blocks * b, (r - k + n) % n, tmp + as_size(k) * b, blocks * b, (r + k) % n,
             comm);
  }
  for (int i = 0; i < n; ++i) {
    const std::size_t owner = as_size((r + i) % n);
    std::copy(tmp + as_size(i) * b, tmp + as_size(i + 1) * b, out + owner * b);
  }
}

// ---- broadcast (from rank 0) ----

// Scatter-allgather (van de Geijn): a binomial scatter gives rank r block r of n, then a ring
// all-gather assembles the whole buffer everywhere.
void broadcast_scatter_allgather(Element* out, std::size_t count, int r, int n,
                                 MPI_Comm comm) {
  if (n == 1) return;
  const std::vector<std::size_t> bounds = balanced_bounds(count, n);
  // A rank's subtree is the ranks [r, r + 2^lowest bit): it receives their blocks from its
  // parent, keeps its own, and passes the upper halves down.
  const auto range = [&](int first, int last) {  // blocks [first, last), clipped to n
    const std::size_t begin = bounds[as_size(first)];
    return std::pair{begin, bounds[as_size(std::min(last, n))] - begin};
  };
  int mask = 1;
  while (mask < n) {
    if ((r & mask) != 0) {
      const auto [begin, size] = range(r, r + mask);
      recv(out + begin, size, r - mask, comm);
      break;
    }
    mask *= 2;
  }
  for (mask /= 2; mask > 0; mask /= 2) {
    if (r + mask < n) {
      const auto [begin, size] = range(r + mask, r + 2 * mask);
      send(out + begin, size, r + mask, comm);
    }
  }
  ring_pass(out, bounds, r, r, n, nullptr, comm);
}

// ---- all-to-all ----

// Pairwise exchange: n - 1 steps; in step s, send block r + s to rank r + s and receive
// block r - s from rank r - s.
void alltoall_pairwise(const Element* in, Element* out, std::size_t count, int r, int n,
                       MPI_Comm comm) {
  const std::size_t b = count / as_size(n);
  std::copy(in + as_size(r) * b, in + as_size(r + 1) * b, out + as_size(r) * b);
  for (int s = 1; s < n; ++s) {
    const int dest = (r + s) % n;
    const int source = (r - s + n) % n;
    sendrecv(in + as_size(dest) * b, b, dest, out + as_size(source) * b, b, source, comm);
  }
}

// One hand-written call, its buffers checked and prepared by run_hand_written.
struct Call {
  const Element* in;
  Element* out;
  std::size_t count;
  int r;
  int n;
  Scratch& scratch;
  MPI_Comm comm;
};

struct HandWritten {
  Op op;
  Algorithm algorithm;
  void (*run)(const Call& call);
};

// What the harness implements by hand: a subset of the model's catalogue (checked below),
// listed in the catalogue's order by hand_written_algorithms.
constexpr HandWritten kHandWritten[] = {
    {Op::kAllreduce, Algorithm::kRing,
     [](const Call& c) { allreduce_ring(c.out, c.count, c.r, c.n, c.scratch.a.data(), c.comm); }},
    {Op::kAllreduce, Algorithm::kRecursiveDoubling,
     [](const Call& c) {
       allreduce_recursive_doubling(c.out, c.count, c.r, c.n, c.scratch.a.data(), c.comm);
     }},
    {Op::kAllreduce, Algorithm::kRabenseifner,
     [](const Call& c) {
       allreduce_rabenseifner(c.out, c.count, c.r, c.n, c.scratch.a.data(), c.comm);
     }},
    {Op::kAllreduce, Algorithm::kBinomialTree,
     [](const Call& c) {
       allreduce_binomial_tree(c.out, c.count, c.r, c.n, c.scratch.a.data(), c.comm);
     }},
    {Op::kReduceScatter, Algorithm::kRing,
     [](const Call& c) { reduce_scatter_ring(c.in, c.out, c.count, c.r, c.n, c.scratch, c.comm); }},
    {Op::kReduceScatter, Algorithm::kRecursiveHalving,
     [](const Call& c) {
       reduce_scatter_recursive_halving(c.in, c.out, c.count, c.r, c.n, c.scratch, c.comm);
     }},
    {Op::kAllgather, Algorithm::kRing,
     [](const Call& c) { allgather_ring(c.in, c.out, c.count, c.r, c.n, c.comm); }},
    {Op::kAllgather, Algorithm::kRecursiveDoubling,
     [](const Call& c) { allgather_recursive_doubling(c.in, c.out, c.count, c.r, c.n, c.comm); }},
    {Op::kAllgather, Algorithm::kBruck,
     [](const Call& c) { allgather_bruck(c.in, c.out, c.count, c.r, c.n, c.scratch, c.comm); }},
    {Op::kBroadcast, Algorithm::kBinomialTree,
     [](const Call& c) { binomial_bcast(c.out, c.count, c.r, c.n, c.comm); }},
    {Op::kBroadcast, Algorithm::kScatterAllgather,
     [](const Call& c) { broadcast_scatter_allgather(c.out, c.count, c.r, c.n, c.comm); }},
    {Op::kAlltoall, Algorithm::kPairwise,
     [](const Call& c) { alltoall_pairwise(c.in, c.out, c.count, c.r, c.n, c.comm); }},
};

constexpr bool every_hand_written_is_catalogued() {
  for (const HandWritten& h : kHandWritten) {
    bool found = false;
    for (const CatalogueEntry& e : kCatalogue) {
      found = found || (e.op == h.op && e.algorithm == h.algorithm);
    }
    if (!found) return false;
  }
  return true;
}
static_assert(every_hand_written_is_catalogued(),
              "a hand-written algorithm the model's catalogue does not have");

const HandWritten* find_hand_written(Op op, Algorithm algorithm) {
  for (const HandWritten& h : kHandWritten) {
    if (h.op == op && h.algorithm == algorithm) return &h;
  }
  return nullptr;
}

}  // namespace

bool measured(Op op) {
  return std::find(std::begin(kMeasuredOps), std::end(kMeasuredOps), op) !=
         std::end(kMeasuredOps);
}

std::vector<Algorithm> hand_written_algorithms(Op op) {
  std::vector<Algorithm> v;
  for (const CatalogueEntry& e : kCatalogue) {
    if (e.op == op && find_hand_written(op, e.algorithm) != nullptr) v.push_back(e.algorithm);
  }
  return v;
}

std::vector<Algorithm> every_hand_written_algorithm() {
  std::vector<Algorithm> v;
  for (const Op op : kMeasuredOps) {
    for (const Algorithm a : hand_written_algorithms(op)) {
      if (std::find(v.begin(), v.end(), a) == v.end()) v.push_back(a);
    }
  }
  return v;
}

std::size_t input_elements(Op op, std::size_t count, int ranks) {
  return op == Op::kAllgather ? count / as_size(ranks) : count;
}

std::size_t output_elements(Op op, std::size_t count, int ranks) {
  return op == Op::kReduceScatter ? count / as_size(ranks) : count;
}

void run_hand_written(Op op, Algorithm algorithm, std::size_t count,
                      std::span<const Element> in, std::span<Element> out, Scratch& scratch,
                      MPI_Comm comm) {
  const HandWritten* h = find_hand_written(op, algorithm);
  // The mode's algorithm lists come from the same table: a miss here is a bug.
  SCALEWALL_CHECK_DETAIL(h != nullptr, "no hand-written " + std::string(op_name(op)) + " " +
                                           algorithm_name(algorithm));
  int r = 0;
  int n = 1;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &n);
  SCALEWALL_CHECK(in.size() >= input_elements(op, count, n));
  SCALEWALL_CHECK(out.size() >= output_elements(op, count, n));
  SCALEWALL_CHECK(scratch.a.size() >= count && scratch.b.size() >= count);
  if (op == Op::kReduceScatter || op == Op::kAllgather || op == Op::kAlltoall) {
    SCALEWALL_CHECK(count % as_size(n) == 0);  // one whole block per rank
  }
  // All-reduce works in place on the output; broadcast's root starts from its input.
  if (op == Op::kAllreduce || (op == Op::kBroadcast && r == 0)) {
    std::copy(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(count), out.begin());
  }
  h->run(Call{in.data(), out.data(), count, r, n, scratch, comm});
}

void run_library(Op op, std::size_t count, std::span<const Element> in, std::span<Element> out,
                 MPI_Comm comm) {
  int r = 0;
  int n = 1;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &n);
  const int whole = mpi_count(count);
  const int block = mpi_count(count / as_size(n));
  switch (op) {
    case Op::kAllreduce:
      MPI_Allreduce(in.data(), out.data(), whole, MPI_INT64_T, MPI_SUM, comm);
      return;
    case Op::kReduceScatter:
      MPI_Reduce_scatter_block(in.data(), out.data(), block, MPI_INT64_T, MPI_SUM, comm);
      return;
    case Op::kAllgather:
      MPI_Allgather(in.data(), block, MPI_INT64_T, out.data(), block, MPI_INT64_T, comm);
      return;
    case Op::kBroadcast:
      if (r == 0) {
        std::copy(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(count), out.begin());
      }
      MPI_Bcast(out.data(), whole, MPI_INT64_T, 0, comm);
      return;
    case Op::kAlltoall:
      MPI_Alltoall(in.data(), block, MPI_INT64_T, out.data(), block, MPI_INT64_T, comm);
      return;
    case Op::kReduce:
    case Op::kBarrier:
      break;
  }
  SCALEWALL_CHECK_DETAIL(false, "the harness does not measure " + std::string(op_name(op)));
}

void add_into(Element* acc, const Element* x, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) acc[i] += x[i];
}

void copy_into(Element* dest, const Element* x, std::size_t count) {
  std::copy(x, x + count, dest);
}

void touch_fresh_buffer(std::size_t bytes, std::size_t page_bytes) {
  void* raw = std::malloc(bytes);
  if (raw == nullptr && bytes > 0) throw std::bad_alloc();
  // Volatile stores: the compiler may not drop them, nor the allocation they write into.
  volatile char* p = static_cast<volatile char*>(raw);
  for (std::size_t at = 0; at < bytes; at += page_bytes) p[at] = 1;
  std::free(raw);
}

Element* fresh_elements(std::size_t count) {
  void* raw = std::malloc(std::max<std::size_t>(count, 1) * sizeof(Element));
  if (raw == nullptr) throw std::bad_alloc();
  return static_cast<Element*>(raw);
}

}  // namespace scalewall::mpi
