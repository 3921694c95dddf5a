/*
 * The few nRF51/nRF52 peripheral registers these images touch.
 *
 * Addresses and bit fields come from the nRF51 Series Reference Manual and the
 * nRF52832/nRF52840 Product Specifications. Only what the images use is defined.
 */
#ifndef NRF_REGS_H
#define NRF_REGS_H

#include <stdint.h>

#define REG32(addr) (*(volatile uint32_t *)(uintptr_t)(addr))

/* GPIO. P0 is at 0x50000000 on every chip here; the nRF52840 adds P1 at 0x50000300. */
#define GPIO_P0_BASE 0x50000000u
#define GPIO_P1_BASE 0x50000300u
#define GPIO_PORT_BASE(port) ((port) == 0u ? GPIO_P0_BASE : GPIO_P1_BASE)
#define GPIO_OUTSET(base) REG32((base) + 0x508u)
#define GPIO_OUTCLR(base) REG32((base) + 0x50Cu)
#define GPIO_PIN_CNF(base, pin) REG32((base) + 0x700u + 4u * (pin))
/* PIN_CNF: DIR=output (bit 0), INPUT=disconnect (bit 1), no pull, standard drive, no sense. */
#define GPIO_PIN_CNF_OUTPUT 0x00000003u

/* TIMER0: used as a 1 MHz time base for the blink delays (no interrupts). */
#define TIMER0_BASE 0x40008000u
#define TIMER0_TASKS_START REG32(TIMER0_BASE + 0x000u)
#define TIMER0_TASKS_STOP REG32(TIMER0_BASE + 0x004u)
#define TIMER0_TASKS_CLEAR REG32(TIMER0_BASE + 0x00Cu)
#define TIMER0_EVENTS_COMPARE0 REG32(TIMER0_BASE + 0x140u)
#define TIMER0_SHORTS REG32(TIMER0_BASE + 0x200u)
#define TIMER0_INTENCLR REG32(TIMER0_BASE + 0x308u)
#define TIMER0_MODE REG32(TIMER0_BASE + 0x504u)
#define TIMER0_BITMODE REG32(TIMER0_BASE + 0x508u)
#define TIMER0_PRESCALER REG32(TIMER0_BASE + 0x510u)
#define TIMER0_CC0 REG32(TIMER0_BASE + 0x540u)
#define TIMER_MODE_TIMER 0u
#define TIMER_BITMODE_32BIT 3u
#define TIMER_PRESCALER_1MHZ 4u /* 16 MHz / 2^4 */

/* nRF52840 only: REGOUT0 sets the GPIO high level when the chip runs from VDDH (USB). */
#define POWER_MAINREGSTATUS REG32(0x40000640u)
#define UICR_REGOUT0 REG32(0x10001304u)
#define UICR_REGOUT0_VOUT_MASK 0x7u
#define UICR_REGOUT0_VOUT_DEFAULT 0x7u /* erased: 1.8 V */
#define UICR_REGOUT0_VOUT_3V0 0x4u
#define NVMC_READY REG32(0x4001E400u)
#define NVMC_CONFIG REG32(0x4001E504u)
#define NVMC_CONFIG_REN 0u
#define NVMC_CONFIG_WEN 1u

/* Cortex-M System Control Block: AIRCR with VECTKEY and SYSRESETREQ. */
#define SCB_AIRCR REG32(0xE000ED0Cu)
#define SCB_AIRCR_SYSRESETREQ 0x05FA0004u

#endif
