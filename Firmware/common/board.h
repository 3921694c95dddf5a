/* LEDs and a blocking millisecond delay for the board selected with BOARD_HEADER. */
#ifndef BOARD_COMMON_H
#define BOARD_COMMON_H

#include <stdbool.h>
#include <stdint.h>

/* Sets up LEDs (all off) and the delay timer; on the Dongle may first fix REGOUT0 and reset. */
void board_init(void);

unsigned board_led_count(void);

/* Turns LED `index` (0 = LED1) on or off; LEDs are active low on all supported boards. */
void board_led_set(unsigned index, bool on);

void board_leds_set_all(bool on);

/* Busy-waits `ms` milliseconds, timed by TIMER0 at 1 MHz (as accurate as HFCLK: a few percent on the RC). */
void board_delay_ms(uint32_t ms);

#endif
