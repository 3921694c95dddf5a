/*
 * Vector table and reset handler shared by every image.
 *
 * The MBR/SoftDevice reads the initial stack pointer and the reset vector from
 * the first two words at the application start address and forwards every
 * interrupt through this table, so it must be the first thing in the image
 * (the linker script places .isr_vector first and checks it).
 */
#include <stdint.h>

#ifndef IRQ_COUNT
#error "IRQ_COUNT must be defined for the target chip"
#endif

typedef void (*vector_t)(void);

extern uint32_t __data_load_start__;
extern uint32_t __data_start__;
extern uint32_t __data_end__;
extern uint32_t __bss_start__;
extern uint32_t __bss_end__;
extern uint32_t __stack_top__;

int main(void);
void Reset_Handler(void);
void Default_Handler(void);

/* Copy .data and zero .bss by hand; keep GCC from turning the loops into memcpy/memset calls. */
__attribute__((noreturn, optimize("no-tree-loop-distribute-patterns"))) void Reset_Handler(void)
{
    const uint32_t *src = &__data_load_start__;
    for (uint32_t *dst = &__data_start__; dst < &__data_end__; dst++) {
        *dst = *src++;
    }
    for (uint32_t *dst = &__bss_start__; dst < &__bss_end__; dst++) {
        *dst = 0u;
    }
    main();
    for (;;) {
    }
}

/* Nothing enables an interrupt; an unexpected exception parks the CPU here. */
void Default_Handler(void)
{
    for (;;) {
    }
}

__attribute__((used, section(".isr_vector"))) const vector_t vector_table[16 + IRQ_COUNT] = {
    [0] = (vector_t)&__stack_top__,
    [1] = Reset_Handler,
    [2] = Default_Handler,  /* NMI */
    [3] = Default_Handler,  /* HardFault */
#if defined(NRF52832) || defined(NRF52840)
    [4] = Default_Handler,  /* MemManage (Cortex-M4 only) */
    [5] = Default_Handler,  /* BusFault */
    [6] = Default_Handler,  /* UsageFault */
    [12] = Default_Handler, /* DebugMonitor */
#endif
    [11] = Default_Handler, /* SVCall */
    [14] = Default_Handler, /* PendSV */
    [15] = Default_Handler, /* SysTick */
    [16 ... 16 + IRQ_COUNT - 1] = Default_Handler,
};
