/*
 * nRF52840 Dongle (PCA10059), nRF52840. All LEDs active low (SDK board header pca10059.h):
 * LED1 green P0.06; LED2 is an RGB LED: red P0.08, green P1.09, blue P0.12.
 */
#ifndef BOARD_H
#define BOARD_H
#define BOARD_LEDS { {0, 6}, {0, 8}, {1, 9}, {0, 12} }
#define BOARD_LED_COUNT 4
/* Powered from USB (VDDH), VDD is 1.8 V until UICR.REGOUT0 is set: too low for the LEDs. */
#define BOARD_NEEDS_REGOUT0_3V0 1
#endif
