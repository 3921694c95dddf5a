#include "board.h"

#include "nrf_regs.h"
#include BOARD_HEADER

struct led {
    uint8_t port;
    uint8_t pin;
};

static const struct led leds[BOARD_LED_COUNT] = BOARD_LEDS;

#if defined(BOARD_NEEDS_REGOUT0_3V0)
/*
 * On the Dongle, powered from USB (VDDH, "high voltage mode"), VDD and the
 * GPIO high level come from REG0, which defaults to 1.8 V: too low to light the
 * green and blue LEDs. If UICR.REGOUT0 is still erased, program 3.0 V and reset
 * once so the setting takes effect; Nordic's SDK board support does the same
 * for this board.
 */
static void regout0_set_3v0_once(void)
{
    if ((POWER_MAINREGSTATUS & 1u) == 0u) {
        return;
    }
    if ((UICR_REGOUT0 & UICR_REGOUT0_VOUT_MASK) != UICR_REGOUT0_VOUT_DEFAULT) {
        return;
    }
    NVMC_CONFIG = NVMC_CONFIG_WEN;
    while (NVMC_READY == 0u) {
    }
    UICR_REGOUT0 = (UICR_REGOUT0 & ~UICR_REGOUT0_VOUT_MASK) | UICR_REGOUT0_VOUT_3V0;
    while (NVMC_READY == 0u) {
    }
    NVMC_CONFIG = NVMC_CONFIG_REN;
    while (NVMC_READY == 0u) {
    }
    __asm volatile("dsb" ::: "memory");
    SCB_AIRCR = SCB_AIRCR_SYSRESETREQ;
    __asm volatile("dsb" ::: "memory");
    for (;;) {
    }
}
#endif

void board_init(void)
{
#if defined(BOARD_NEEDS_REGOUT0_3V0)
    regout0_set_3v0_once();
#endif
    for (unsigned i = 0; i < BOARD_LED_COUNT; i++) {
        const uint32_t base = GPIO_PORT_BASE(leds[i].port);
        GPIO_OUTSET(base) = 1u << leds[i].pin; /* drive high (off) before enabling the output */
        GPIO_PIN_CNF(base, leds[i].pin) = GPIO_PIN_CNF_OUTPUT;
    }

    TIMER0_TASKS_STOP = 1u;
    TIMER0_INTENCLR = 0xFFFFFFFFu;
    TIMER0_SHORTS = 0u;
    TIMER0_MODE = TIMER_MODE_TIMER;
    TIMER0_BITMODE = TIMER_BITMODE_32BIT;
    TIMER0_PRESCALER = TIMER_PRESCALER_1MHZ;
}

unsigned board_led_count(void)
{
    return BOARD_LED_COUNT;
}

void board_led_set(unsigned index, bool on)
{
    const uint32_t base = GPIO_PORT_BASE(leds[index].port);
    const uint32_t mask = 1u << leds[index].pin;
    if (on) {
        GPIO_OUTCLR(base) = mask;
    } else {
        GPIO_OUTSET(base) = mask;
    }
}

void board_leds_set_all(bool on)
{
    for (unsigned i = 0; i < BOARD_LED_COUNT; i++) {
        board_led_set(i, on);
    }
}

void board_delay_ms(uint32_t ms)
{
    TIMER0_CC0 = ms * 1000u;
    TIMER0_TASKS_CLEAR = 1u;
    TIMER0_EVENTS_COMPARE0 = 0u;
    TIMER0_TASKS_START = 1u;
    while (TIMER0_EVENTS_COMPARE0 == 0u) {
    }
    TIMER0_TASKS_STOP = 1u;
}
