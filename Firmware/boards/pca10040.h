/* nRF52 DK (PCA10040), nRF52832. LED1..LED4 on P0.17..P0.20, active low (SDK board header pca10040.h). */
#ifndef BOARD_H
#define BOARD_H
#define BOARD_LEDS { {0, 17}, {0, 18}, {0, 19}, {0, 20} }
#define BOARD_LED_COUNT 4
#endif
