/*
 * Self-test: proves that a large image arrived intact.
 *
 * The image carries a 128 KiB table generated at build time
 * (gen_selftest_table.py, fixed seed) at the very end of the image, and the
 * table's expected CRC-32 in the image_info record right after the vector
 * table. At boot the CRC-32 of the table in flash is computed and compared:
 *
 *   pass: LED1 blinks slowly (500 ms on, 500 ms off), the other LEDs stay off;
 *   fail: all four LEDs blink together fast (100 ms on, 100 ms off).
 */
#include <stdbool.h>

#include "board.h"
#include "crc32.h"
#include "image_info.h"
#include "selftest_table.h"

#define PASS_HALF_PERIOD_MS 500u
#define FAIL_HALF_PERIOD_MS 100u

static bool image_is_intact(void)
{
    const volatile struct image_info *info = &image_info;
    if (info->magic != IMAGE_INFO_MAGIC || info->table_words != SELFTEST_TABLE_WORDS) {
        return false;
    }
    return crc32_words(selftest_table, SELFTEST_TABLE_WORDS) == info->table_crc32;
}

int main(void)
{
    board_init();
    if (image_is_intact()) {
        for (;;) {
            board_led_set(0, true);
            board_delay_ms(PASS_HALF_PERIOD_MS);
            board_led_set(0, false);
            board_delay_ms(PASS_HALF_PERIOD_MS);
        }
    }
    for (;;) {
        board_leds_set_all(true);
        board_delay_ms(FAIL_HALF_PERIOD_MS);
        board_leds_set_all(false);
        board_delay_ms(FAIL_HALF_PERIOD_MS);
    }
}
