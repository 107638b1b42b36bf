// mpi/algorithms.h: the classic collective algorithms written by hand over MPI point-to-point
// calls (MPI_Sendrecv, MPI_Send, MPI_Recv), to be raced against the MPI library's own call
// on the same buffers and checked against its result.
//
// Layer: mpi/. Includes <mpi.h>. The algorithms are the ones include/scalewall/model/collective.h
// costs, under the same names; docs/mpi.md gives each one's steps.
//
// Data are 64-bit integers summed (MPI_INT64_T, MPI_SUM), so every algorithm must reproduce
// the library's result exactly, whatever order it adds in.
//
// Buffers, with N ranks, `count` elements in all and b = count / N elements per block
// (collective.h's size convention: count * 8 bytes is the whole buffer per rank):
//   op              in                              out
//   allreduce       count                           count, the element-wise sum
//   reduce-scatter  count, N blocks of b            b, block `rank` of the sum
//   all-gather      b                               count, rank j's input as block j
//   broadcast       count (read on rank 0 only)     count, rank 0's input
//   all-to-all      count, block j is for rank j    count, block j came from rank j
// REQUIRES: count divisible by N for reduce-scatter, all-gather and all-to-all; every count
// passed to MPI fits in an int (the caller checks before allocating).
#ifndef SCALEWALL_MPI_ALGORITHMS_H_
#define SCALEWALL_MPI_ALGORITHMS_H_

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "scalewall/model/collective.h"

namespace scalewall::mpi {

using Element = std::int64_t;

// The reduction every hand-written algorithm runs on what it receives: acc[i] += x[i].
void add_into(Element* acc, const Element* x, std::size_t count);
// dest[i] = x[i]: the local copy an out-of-place call makes of its input.
void copy_into(Element* dest, const Element* x, std::size_t count);
// A fresh temporary buffer of `bytes`, as an MPI library allocates one inside a call:
// malloc, one write to each page (the first touch, which faults a freshly mapped page in),
// free. `page_bytes` > 0. Throws std::bad_alloc when the allocation fails.
void touch_fresh_buffer(std::size_t bytes, std::size_t page_bytes);
// A fresh buffer of `count` elements, as an MPI library allocates a work buffer inside a call:
// std::malloc, not a byte of it written; the caller frees it with std::free. Throws
// std::bad_alloc when the allocation fails.
Element* fresh_elements(std::size_t count);

// The five ops the harness measures, in this order.
inline constexpr Op kMeasuredOps[] = {Op::kAllreduce, Op::kReduceScatter, Op::kAllgather,
                                      Op::kBroadcast, Op::kAlltoall};

// Whether the harness measures `op`.
bool measured(Op op);

// The hand-written algorithms for `op`: the model catalogue's algorithms of `op` that the
// harness implements (a subset, checked at compile time), in the catalogue's order:
//   allreduce       ring, recursive-doubling, rabenseifner, binomial-tree
//   reduce-scatter  ring, recursive-halving
//   all-gather      ring, recursive-doubling, bruck
//   broadcast       binomial-tree, scatter-allgather
//   all-to-all      pairwise
// Every one works for any N >= 1 (the power-of-two ones fold the extra ranks in first).
std::vector<Algorithm> hand_written_algorithms(Op op);

// Every hand-written algorithm, each once, in order of first appearance over kMeasuredOps.
std::vector<Algorithm> every_hand_written_algorithm();

// Elements the input and output of `op` hold (see the table above).
std::size_t input_elements(Op op, std::size_t count, int ranks);
std::size_t output_elements(Op op, std::size_t count, int ranks);

// Work space an algorithm may use, sized before the timed region so that no algorithm
// allocates while timed. REQUIRES: both hold at least `count` elements.
struct Scratch {
  std::vector<Element> a;
  std::vector<Element> b;
};

// Runs hand-written `algorithm` of `op` on `comm`. REQUIRES: the algorithm is one of
// hand_written_algorithms(op); spans sized as above; scratch sized to `count`.
void run_hand_written(Op op, Algorithm algorithm, std::size_t count,
                      std::span<const Element> in, std::span<Element> out, Scratch& scratch,
                      MPI_Comm comm);

// Runs the library's call for `op`: MPI_Allreduce, MPI_Reduce_scatter_block, MPI_Allgather,
// MPI_Bcast (root 0; `in` is copied to `out` on rank 0 first) or MPI_Alltoall.
void run_library(Op op, std::size_t count, std::span<const Element> in, std::span<Element> out,
                 MPI_Comm comm);

}  // namespace scalewall::mpi

#endif  // SCALEWALL_MPI_ALGORITHMS_H_
