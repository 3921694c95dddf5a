/* nRF52840 DK (PCA10056), nRF52840. LED1..LED4 on P0.13..P0.16, active low (SDK board header pca10056.h). */
#ifndef BOARD_H
#define BOARD_H
#define BOARD_LEDS { {0, 13}, {0, 14}, {0, 15}, {0, 16} }
#define BOARD_LED_COUNT 4
#endif
