// quoct internals for <quoct/mpi.hpp>: the few MPI collectives the distributed index uses,
// wrapped so that every byte this rank sends to another rank is counted, and the
// collective error agreement (bad input on one rank throws on every rank).
#ifndef QUOCT_DETAIL_MPI_EXCHANGE_HPP
#define QUOCT_DETAIL_MPI_EXCHANGE_HPP

#include <mpi.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace quoct {
namespace mpi {
namespace detail {

template <class T>
MPI_Datatype scalar_type() noexcept {
    if constexpr (std::is_same<T, float>::value) return MPI_FLOAT;
    else if constexpr (std::is_same<T, double>::value) return MPI_DOUBLE;
    else if constexpr (std::is_same<T, long double>::value) return MPI_LONG_DOUBLE;
    else if constexpr (std::is_same<T, std::uint64_t>::value) return MPI_UINT64_T;
    else {
        static_assert(std::is_same<T, int>::value, "quoct::mpi: no MPI type for this scalar");
        return MPI_INT;
    }
}

/// A contiguous MPI type of sizeof(V) bytes, freed when it goes out of scope, so counts and
/// displacements are in records, not bytes.
template <class V>
class record_type {
    static_assert(std::is_trivially_copyable<V>::value, "quoct::mpi: exchanged records must be trivially copyable");

public:
    record_type() {
        MPI_Type_contiguous(static_cast<int>(sizeof(V)), MPI_BYTE, &type_);
        MPI_Type_commit(&type_);
    }
    ~record_type() { MPI_Type_free(&type_); }
    record_type(const record_type&) = delete;
    record_type& operator=(const record_type&) = delete;
    MPI_Datatype get() const noexcept { return type_; }

private:
    MPI_Datatype type_;
};

/// Counts above INT_MAX cannot be passed to MPI-3 collectives: stop every rank loudly
/// rather than hang (a documented limit: fewer than 2^31 records per rank per exchange).
inline int checked_count(std::size_t n, MPI_Comm comm) {
    if (n > static_cast<std::size_t>(INT_MAX)) {
        std::fprintf(stderr, "quoct::mpi: %zu records in one exchange exceed MPI's int counts\n", n);
        MPI_Abort(comm, 1);
    }
    return static_cast<int>(n);
}

/// A communicator with this rank's number, the rank count, and a tally of bytes sent.
///
/// bytes_sent counts what this rank addresses to other ranks: the payload of every
/// personalised exchange plus its counts, and for gathers and reductions this rank's
/// contribution once per other rank (a logical count; tree or ring algorithms inside MPI
/// may move a little more or less for those small messages). Sends to itself are free.
class channel {
public:
    explicit channel(MPI_Comm comm) : comm_(comm) {
        MPI_Comm_rank(comm, &rank_);
        MPI_Comm_size(comm, &size_);
    }

    MPI_Comm comm() const noexcept { return comm_; }
    int rank() const noexcept { return rank_; }
    int size() const noexcept { return size_; }
    std::size_t ranks() const noexcept { return static_cast<std::size_t>(size_); }
    std::uint64_t bytes_sent() const noexcept { return bytes_; }

    /// Sends values[offsets[r], offsets[r + 1]) to rank r (offsets has size() + 1 entries)
    /// and returns what every rank sent here, in source-rank order; recv_offsets[r] is where
    /// rank r's part starts. Collective.
    template <class V>
    std::vector<V> exchange(const std::vector<V>& values, const std::vector<std::size_t>& offsets,
                            std::vector<std::size_t>& recv_offsets) const {
        std::vector<int> send_counts(ranks()), recv_counts(ranks());
        for (std::size_t r = 0; r < ranks(); ++r) send_counts[r] = checked_count(offsets[r + 1] - offsets[r], comm_);
        MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, comm_);
        bytes_ += sizeof(int) * (ranks() - 1);
        return exchange_known(values, offsets, recv_counts, recv_offsets);
    }

    /// As exchange, when this rank already knows how many records each rank sends it.
    template <class V>
    std::vector<V> exchange_known(const std::vector<V>& values, const std::vector<std::size_t>& offsets,
                                  const std::vector<int>& recv_counts, std::vector<std::size_t>& recv_offsets) const {
        std::vector<int> send_counts(ranks()), send_displs(ranks()), recv_displs(ranks());
        recv_offsets.assign(ranks() + 1, 0);
        for (std::size_t r = 0; r < ranks(); ++r) {
            send_counts[r] = checked_count(offsets[r + 1] - offsets[r], comm_);
            send_displs[r] = checked_count(offsets[r], comm_);
            recv_displs[r] = checked_count(recv_offsets[r], comm_);
            recv_offsets[r + 1] = recv_offsets[r] + static_cast<std::size_t>(recv_counts[r]);
            if (static_cast<int>(r) != rank_) bytes_ += sizeof(V) * static_cast<std::size_t>(send_counts[r]);
        }
        std::vector<V> received(recv_offsets.back());
        const record_type<V> type;
        MPI_Alltoallv(values.data(), send_counts.data(), send_displs.data(), type.get(), received.data(),
                      recv_counts.data(), recv_displs.data(), type.get(), comm_);
        return received;
    }

    /// Every rank's records, concatenated in rank order; offsets[r] is where rank r's start.
    template <class V>
    std::vector<V> all_gather(const std::vector<V>& mine, std::vector<std::size_t>& offsets) const {
        const int n = checked_count(mine.size(), comm_);
        std::vector<int> counts(ranks()), displs(ranks());
        MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, comm_);
        offsets.assign(ranks() + 1, 0);
        for (std::size_t r = 0; r < ranks(); ++r) {
            displs[r] = checked_count(offsets[r], comm_);
            offsets[r + 1] = offsets[r] + static_cast<std::size_t>(counts[r]);
        }
        std::vector<V> all(offsets.back());
        const record_type<V> type;
        MPI_Allgatherv(mine.data(), n, type.get(), all.data(), counts.data(), displs.data(), type.get(), comm_);
        bytes_ += (sizeof(int) + sizeof(V) * mine.size()) * (ranks() - 1);
        return all;
    }

    /// Element-wise reduction of n scalars in place (op: MPI_SUM, MPI_MIN, MPI_MAX).
    template <class S>
    void all_reduce(S* data, std::size_t n, MPI_Op op) const {
        MPI_Allreduce(MPI_IN_PLACE, data, checked_count(n, comm_), scalar_type<S>(), op, comm_);
        bytes_ += sizeof(S) * n * (ranks() - 1);
    }
    template <class S>
    S all_reduce(S value, MPI_Op op) const {
        all_reduce(&value, 1, op);
        return value;
    }

    /// The sum of `value` over the ranks before this one (0 on rank 0).
    std::uint64_t exclusive_sum(std::uint64_t value) const {
        std::uint64_t before = 0;
        MPI_Exscan(&value, &before, 1, MPI_UINT64_T, MPI_SUM, comm_);
        bytes_ += sizeof(value) * (ranks() - 1);
        return rank_ == 0 ? 0 : before;
    }

    /// Runs check(); if it throws on any rank, every rank throws the same exception type
    /// (std::invalid_argument, std::length_error, or else std::runtime_error) with the
    /// message of the lowest failing rank, prefixed by that rank's number. Collective.
    template <class Check>
    void agree(Check&& check) const {
        int code = 0;
        std::string message;
        try {
            check();
        } catch (const std::invalid_argument& e) {
            code = 1, message = e.what();
        } catch (const std::length_error& e) {
            code = 2, message = e.what();
        } catch (const std::exception& e) {
            code = 3, message = e.what();
        }
        const int first = all_reduce(code != 0 ? rank_ : size_, MPI_MIN);
        if (first == size_) return;
        int header[2] = {code, static_cast<int>(message.size())};
        MPI_Bcast(header, 2, MPI_INT, first, comm_);
        message.resize(static_cast<std::size_t>(header[1]));
        MPI_Bcast(&message[0], header[1], MPI_CHAR, first, comm_);
        if (rank_ == first) bytes_ += (sizeof(header) + message.size()) * (ranks() - 1);
        const std::string what = "quoct::mpi: rank " + std::to_string(first) + ": " + message;
        if (header[0] == 1) throw std::invalid_argument(what);
        if (header[0] == 2) throw std::length_error(what);
        throw std::runtime_error(what);
    }

private:
    MPI_Comm comm_;
    int rank_ = 0;
    int size_ = 1;
    mutable std::uint64_t bytes_ = 0;
};

}  // namespace detail
}  // namespace mpi
}  // namespace quoct

#endif  // QUOCT_DETAIL_MPI_EXCHANGE_HPP
