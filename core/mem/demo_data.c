/*
** 2026-11-29
**
** core/mem/demo_data.c - a small synthetic multi-session conversation between a user (Maya)
** and an assistant, written for the README demo and the tests: facts are stated in one
** session and asked about later, some questions need the newest of two conflicting facts,
** and the wording of questions differs from the turns that answer them. Invented text; no
** real person. Each question names the turn that answers it.
*/
#include "mem_int.h"

#define DAY 86400000ll
#define T0 1735725600000ll /* 2025-01-01 10:00 UTC */

static const cairn_mem_demo_turn aTurn[] = {
  /* session 1: 2025-01-01 */
  {"s1", "Maya", "Happy new year! I finally adopted a dog, a three-year-old beagle called Pepper.", T0},
  {"s1", "assistant", "Congratulations! Beagles are curious and friendly. How is Pepper settling in?", T0 + 60000},
  {"s1", "Maya", "She is great but she howls whenever I leave the flat.", T0 + 120000},
  {"s1", "assistant", "Separation anxiety is common; short absences and a puzzle feeder can help.", T0 + 180000},
  {"s1", "Maya", "I work as a pharmacist at a hospital in Porto, so I am out for long shifts.", T0 + 240000},
  {"s1", "assistant", "A dog walker at midday could break up the long shifts for Pepper.", T0 + 300000},
  {"s1", "Maya", "Good idea. By the way I am allergic to peanuts, so no peanut butter in the puzzle feeder.", T0 + 360000},
  {"s1", "assistant", "Noted: I will suggest peanut-free treats such as plain pumpkin or carrot.", T0 + 420000},
  /* session 2: 2025-02-14 */
  {"s2", "Maya", "My sister Ines is visiting from Montreal next week, she is a violinist.", T0 + 44 * DAY},
  {"s2", "assistant", "How lovely. Are you planning anything special while Ines is here?", T0 + 44 * DAY + 60000},
  {"s2", "Maya", "We want to hear a fado concert and eat grilled sardines by the river.", T0 + 44 * DAY + 120000},
  {"s2", "assistant", "The Ribeira district has fado houses and seafood places close together.", T0 + 44 * DAY + 180000},
  {"s2", "Maya", "I also started cello lessons on Thursday evenings, Ines inspired me.", T0 + 44 * DAY + 240000},
  {"s2", "assistant", "Cello is a wonderful choice. Practise open strings and slow scales first.", T0 + 44 * DAY + 300000},
  {"s2", "Maya", "My teacher is called Rui and he says my bow hold is too tense.", T0 + 44 * DAY + 360000},
  /* session 3: 2025-04-03 */
  {"s3", "Maya", "Big news: I accepted a job offer in Lisbon, at a research lab working on vaccines.", T0 + 92 * DAY},
  {"s3", "assistant", "Congratulations on the new role! When do you start?", T0 + 92 * DAY + 60000},
  {"s3", "Maya", "In June. I need to find an apartment in Lisbon that allows dogs.", T0 + 92 * DAY + 120000},
  {"s3", "assistant", "Neighbourhoods like Campo de Ourique have parks and many pet-friendly rentals.", T0 + 92 * DAY + 180000},
  {"s3", "Maya", "Pepper hurt her paw on a hike, the vet put a bandage on it for two weeks.", T0 + 92 * DAY + 240000},
  {"s3", "assistant", "Poor Pepper. Keep the bandage dry and limit long walks until the vet checks it.", T0 + 92 * DAY + 300000},
  {"s3", "Maya", "I am reading a novel by Saramago, Blindness, for my book club.", T0 + 92 * DAY + 360000},
  /* session 4: 2025-06-20 */
  {"s4", "Maya", "We moved! The new flat in Lisbon is in Campo de Ourique, two streets from a park.", T0 + 170 * DAY},
  {"s4", "assistant", "Wonderful. How does Pepper like the new neighbourhood?", T0 + 170 * DAY + 60000},
  {"s4", "Maya", "She loves the park and has stopped howling, she has a dog friend called Biscoito.", T0 + 170 * DAY + 120000},
  {"s4", "Maya", "I stopped the cello for now, the move took all my energy, but I kept the instrument.", T0 + 170 * DAY + 180000},
  {"s4", "assistant", "That makes sense. You can pick it up again once you settle in.", T0 + 170 * DAY + 240000},
  {"s4", "Maya", "My birthday is on the 9th of July, I am thinking of a picnic in the park.", T0 + 170 * DAY + 300000},
  {"s4", "assistant", "A picnic sounds perfect; remember to keep the food peanut-free for you.", T0 + 170 * DAY + 360000},
  /* session 5: 2025-09-02 */
  {"s5", "Maya", "Ines had a baby boy called Tomas! I am flying to Montreal in October to meet him.", T0 + 244 * DAY},
  {"s5", "assistant", "Congratulations, auntie! Who will look after Pepper while you travel?", T0 + 244 * DAY + 60000},
  {"s5", "Maya", "My neighbour Joana offered to take care of Pepper, she has a garden.", T0 + 244 * DAY + 120000},
  {"s5", "Maya", "Work is intense, our team is testing a new flu vaccine this autumn.", T0 + 244 * DAY + 180000},
  {"s5", "assistant", "That sounds important. Try to keep some evenings free for yourself.", T0 + 244 * DAY + 240000},
};

static const cairn_mem_demo_question aQuestion[] = {
  {"What breed is Maya's dog?", 0},
  {"What is Maya allergic to?", 6},
  {"Where does Maya's sister live?", 8},
  {"Who is Maya's cello teacher?", 14},
  {"Where is Maya's new job?", 15},
  {"Which neighbourhood did Maya move to?", 22},
  {"When is Maya's birthday?", 27},
  {"Who will take care of Pepper during the trip?", 31},
  {"What happened to Pepper's paw?", 19},
  {"What is the name of Ines's baby?", 29},
};

const cairn_mem_demo_turn *cairn_mem_demo_turns(size_t *pn) {
  if (pn) *pn = CAIRN_ARRAY_SIZE(aTurn);
  return aTurn;
}
const cairn_mem_demo_question *cairn_mem_demo_questions(size_t *pn) {
  if (pn) *pn = CAIRN_ARRAY_SIZE(aQuestion);
  return aQuestion;
}
