/*
 * LED blinky: a running light. LED1, LED2, LED3, LED4 each light for 250 ms in
 * turn, so the pattern repeats once a second. Nothing else runs: no SoftDevice
 * call, no interrupts.
 */
#include "board.h"

#define STEP_MS 250u

int main(void)
{
    board_init();
    for (;;) {
        for (unsigned i = 0; i < board_led_count(); i++) {
            board_led_set(i, true);
            board_delay_ms(STEP_MS);
            board_led_set(i, false);
        }
    }
}
