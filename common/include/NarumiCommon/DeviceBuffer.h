#ifndef NARUMI_COMMON_DEVICE_BUFFER_H_
#define NARUMI_COMMON_DEVICE_BUFFER_H_

/**
 * The one owner of raw CUDA memory in the project (OpenMM's plugin otherwise uses OpenMM's CudaArray):
 *   DeviceBuffer<T>  device memory, with upload/download/zero queued on a stream
 *   PinnedBuffer<T>  page-locked host memory, the staging area of uploads that must not wait for the host
 * Both are move-only RAII and grow only: resize(n) keeps the allocation when it holds n elements already, so a
 * buffer reused every frame allocates once (growing discards the contents).  Memory belongs to the device context
 * current at allocation; destroy or reset a buffer while that context is current.  Errors throw std::runtime_error
 * (checkCuda).
 */

#include "NarumiCommon/CudaError.h"
#include <cuda_runtime_api.h>
#include <cstddef>
#include <utility>
#include <vector>

namespace OpenMMNarumi::Common {

namespace detail {

/** Where a GrowingBuffer's memory comes from. */
struct DeviceMemory {
    static void* allocate(size_t bytes) {
        void* memory = nullptr;
        checkCuda(cudaMalloc(&memory, bytes), "cudaMalloc");
        return memory;
    }
    static void release(void* memory) {
        cudaFree(memory);
    }
};

struct PinnedHostMemory {
    static void* allocate(size_t bytes) {
        void* memory = nullptr;
        checkCuda(cudaMallocHost(&memory, bytes), "cudaMallocHost");
        return memory;
    }
    static void release(void* memory) {
        cudaFreeHost(memory);
    }
};

/** size() elements of T in memory from Memory, capacity() of them allocated. */
template <class T, class Memory>
class GrowingBuffer {
public:
    GrowingBuffer() = default;
    explicit GrowingBuffer(size_t count) {
        resize(count);
    }
    GrowingBuffer(const GrowingBuffer&) = delete;
    GrowingBuffer& operator=(const GrowingBuffer&) = delete;
    GrowingBuffer(GrowingBuffer&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)),
          capacity_(std::exchange(other.capacity_, 0)) {
    }
    GrowingBuffer& operator=(GrowingBuffer&& other) noexcept {
        if (this != &other) {
            reset();
            data_ = std::exchange(other.data_, nullptr);
            size_ = std::exchange(other.size_, 0);
            capacity_ = std::exchange(other.capacity_, 0);
        }
        return *this;
    }
    ~GrowingBuffer() {
        reset();
    }

    /** Makes size() count, reallocating (without copying) only when count exceeds capacity(); returns data(). */
    T* resize(size_t count) {
        if (count > capacity_) {
            reset();
            data_ = static_cast<T*>(Memory::allocate(count * sizeof(T)));
            capacity_ = count;
        }
        size_ = count;
        return data_;
    }
    /** Frees the memory (in the current context). */
    void reset() {
        if (data_ != nullptr)
            Memory::release(data_);
        data_ = nullptr;
        size_ = capacity_ = 0;
    }
    T* data() const {
        return data_;
    }
    size_t size() const {
        return size_;
    }
    size_t capacity() const {
        return capacity_;
    }

private:
    T* data_ = nullptr;
    size_t size_ = 0, capacity_ = 0;
};

} // namespace detail

/** Device memory: see the file comment.  Copies and clears are queued on `stream` (0: the default stream). */
template <class T>
class DeviceBuffer : public detail::GrowingBuffer<T, detail::DeviceMemory> {
public:
    using detail::GrowingBuffer<T, detail::DeviceMemory>::GrowingBuffer;

    /** resize(count), then queue a copy of values[0, count) to the device (pageable values: done when this returns). */
    void upload(const T* values, size_t count, cudaStream_t stream = 0) {
        checkCuda(cudaMemcpyAsync(this->resize(count), values, count * sizeof(T), cudaMemcpyHostToDevice, stream), "upload");
    }
    void upload(const std::vector<T>& values, cudaStream_t stream = 0) {
        upload(values.data(), values.size(), stream);
    }
    /** Queues a copy of the first count elements to values (pageable values: done when this returns). */
    void download(T* values, size_t count, cudaStream_t stream = 0) const {
        checkCuda(cudaMemcpyAsync(values, this->data(), count * sizeof(T), cudaMemcpyDeviceToHost, stream), "download");
    }
    /** Queues setting the size() elements to all-zero bytes. */
    void zero(cudaStream_t stream = 0) {
        checkCuda(cudaMemsetAsync(this->data(), 0, this->size() * sizeof(T), stream), "clearing device memory");
    }
};

/** Page-locked host memory: see the file comment. */
template <class T>
using PinnedBuffer = detail::GrowingBuffer<T, detail::PinnedHostMemory>;

} // namespace OpenMMNarumi::Common

#endif // NARUMI_COMMON_DEVICE_BUFFER_H_
