/* nRF51 DK (PCA10028), nRF51422. LED1..LED4 on P0.21..P0.24, active low (SDK board header pca10028.h). */
#ifndef BOARD_H
#define BOARD_H
#define BOARD_LEDS { {0, 21}, {0, 22}, {0, 23}, {0, 24} }
#define BOARD_LED_COUNT 4
#endif
